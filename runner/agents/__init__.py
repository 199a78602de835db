"""Agents: the interface, and the registry of built-in scripted strategies."""

from runner.agents.base import Agent, Decision, ProbeRequest, Request, ScriptedAgent

__all__ = ["Agent", "Decision", "ProbeRequest", "Request", "ScriptedAgent"]
