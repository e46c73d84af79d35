"""Speech-to-speech models over WebSocket sessions: the session transport, the session model (limits, retries,
cache, one session per dialogue), the OpenAI Realtime and Gemini Live protocols and the reply collector. Public
names are re-exported by :mod:`voxeval.llm`."""
