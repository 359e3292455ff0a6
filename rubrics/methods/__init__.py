"""Scoring methods: one module per method, each pure — an item and a dimension in, a result out.

Methods that call a model (llm_judge, claims, argumentation parity) are coroutines taking a
:class:`rubrics.judge.client.JudgeClient`; the others are plain functions.
"""
