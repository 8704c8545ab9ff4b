"""The closed vocabularies of the command line (formats, hook protocols, modes), without click."""

from __future__ import annotations

FORMAT_CHOICES = ["toolpolicy", "claude-code", "docker-agent", "gemini", "codex", "agent-code"]
FORMAT_CHOICES += ["cursor", "copilot", "cline", "roo-code", "windsurf", "factory"]
PROTOCOL_CHOICES = ["claude-code", "docker-agent", "gemini", "agent-code", "codex"]
PROTOCOL_CHOICES += ["cursor", "copilot", "cline"]
MODE_CHOICES = ["default", "yolo", "non_interactive", "auto_edit", "auto"]
