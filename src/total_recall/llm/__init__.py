"""The LLM provider behind the LLM-backed tools: any OpenAI-compatible chat endpoint, with presets.

Nothing here is imported at startup: the tools that need a model import it when called, so a machine
with no key (or no network) keeps every other tool working.
"""
