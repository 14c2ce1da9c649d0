"""The language model: messages, completions and token usage, the `LLMClient` port the voice uses, and the
OpenAI-compatible client behind it (retries, structured output, streaming)."""
