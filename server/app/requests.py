"""Every request answered with the right JSON-RPC code and words a person can act on (SDK middleware).

What the SDK would otherwise answer, and what this answers instead (the 2026-07-28
specification, server/tools and server/prompts, "Error Handling"):

- an unknown tool: an `isError` result ("Unknown tool: x") -> JSON-RPC error -32602
  naming the tools there are (a protocol error: the request itself is wrong);
- an unknown prompt: error code 0 -> -32602 naming the prompts there are;
- tool arguments the schema rejects: pydantic's text with a URL -> an `isError` result
  (an input validation error the model can correct) in plain words (app/arguments.py);
- a tool error: "Error executing tool remember: <message>" -> just the message;
- any other exception in a handler: error code 0 -> -32603 (internal error), its
  traceback in the server's log.

It runs as the SDK's context-tier middleware: it sees each request before its handler
and the wire result after, and leaves the response envelope to the SDK.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, INVALID_PARAMS
from pydantic import ValidationError

from server.app.arguments import ArgumentCheck

log = logging.getLogger(__name__)
_PYDANTIC = re.compile(r"\d+ validation errors? for ")


class RequestErrors:
    """The middleware: `mcp.middleware.append(RequestErrors(mcp))` after every tool and prompt is registered."""

    def __init__(self, mcp: MCPServer) -> None:
        self.mcp = mcp
        self._check: ArgumentCheck | None = None
        self._prompts: list[str] | None = None

    async def _arguments(self) -> ArgumentCheck:
        if self._check is None:
            self._check = ArgumentCheck({t.name: t.input_schema for t in await self.mcp.list_tools()})
        return self._check

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        params = ctx.params if isinstance(ctx.params, Mapping) else None
        try:
            if ctx.method == "tools/call" and params is not None and isinstance(params.get("name"), str):
                return await self._call_tool(ctx, params, call_next)
            if ctx.method in ("prompts/get", "completion/complete") and params is not None:
                await self._known_prompt(params)
            return await call_next(ctx)
        except (MCPError, ValidationError):
            raise
        except Exception as exc:
            log.error("%s failed unexpectedly", ctx.method, exc_info=exc)
            raise MCPError(
                INTERNAL_ERROR, f"internal error while handling {ctx.method} ({type(exc).__name__}); the server's "
                "log (stderr) has the details"
            ) from exc

    async def _known_prompt(self, params: Mapping[str, Any]) -> None:
        if self._prompts is None:
            self._prompts = [p.name for p in await self.mcp.list_prompts()]
        if "ref" in params:  # completion/complete: only a prompt reference names a prompt
            ref = params.get("ref")
            if not (isinstance(ref, Mapping) and ref.get("type") == "ref/prompt"):
                return
            name = ref.get("name")
        else:
            name = params.get("name")
        if isinstance(name, str) and name not in self._prompts:
            raise MCPError(INVALID_PARAMS, f"Unknown prompt: {name!r}; this server's prompts are: {', '.join(self._prompts)}")

    async def _call_tool(self, ctx: Any, params: Mapping[str, Any], call_next: Any) -> Any:
        name = params["name"]
        check = await self._arguments()
        if name not in check.schemas:
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {name!r}; this server's tools are: {', '.join(check.schemas)}")
        arguments = params.get("arguments")
        result = await call_next(ctx)
        if not (isinstance(result, dict) and result.get("isError")):
            return result
        content = result.get("content")
        if not (isinstance(content, list) and content and isinstance(content[0], dict)):
            return result
        text = content[0].get("text")
        if not isinstance(text, str):
            return result
        prefix = f"Error executing tool {name}: "
        if text.startswith(prefix) and _PYDANTIC.match(text, len(prefix)):  # pydantic's text: never shown
            # Checked against the schema only now that pydantic refused them: jsonschema's import (~0.1 s,
            # 0.2-0.7 s of a busy machine) stays off a server's first recall and out of its start.
            invalid = (check.message(name, {} if arguments is None else arguments)
                       if isinstance(arguments, (Mapping, type(None))) else None)
            text = invalid or (f"Invalid arguments for {name}: they do not fit the tool's input schema "
                               "(tools/list shows each argument's type and bounds).")
        elif text.startswith(prefix):
            text = text[len(prefix):]
        elif text == prefix[:-2]:  # a crash: the SDK keeps its text on the server
            text = f"{name} failed with an internal error; the server's log (stderr) has the details. Retry, or report it."
        return {**result, "content": [{**content[0], "text": text}, *content[1:]]}
