"""Speech: audio I/O and the benchmark's input format (``audio``), text-to-speech (``tts``), ASR, acoustics."""
