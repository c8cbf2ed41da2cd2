"""Test fakes the end-to-end tests and the benchmarks share: a fake OpenAI-compatible server (``fake_llm``) and the
scripted replies it gives (``llm_replies``). Development only: installed by the workspace, never by a service image.
"""
