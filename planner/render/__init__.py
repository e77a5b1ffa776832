"""Rendering plans for people: terminal text now; Markdown, HTML and JSON later."""

from planner.render.text import render_plan

__all__ = ["render_plan"]
