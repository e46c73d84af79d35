"""Chat models over HTTP: OpenAI and Gemini request/response formats, OpenAI-compatible servers, replicas, the local
llama.cpp model and the model parameter profiles. Public names are re-exported by :mod:`voxeval.llm`."""
