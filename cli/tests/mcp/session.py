"""One agent session against `seedfall mcp` through the Python `mcp` client
over stdio: list the tools, sweep kvlog's buggy config (a call that waits, with
progress notifications where the client takes a callback, then a page of its
per-seed detail, then a sweep in the background polled by handle), read the
findings, shrink the lowest failing seed, explain it with cause, and
verify the fixed config against the shrunk schedule. With `mcp` below 2 it is
`stdio_client` and `ClientSession.initialize` (the 2025-11-25 handshake); with
`mcp` 2.x it is `Client` in its default mode, which probes `server/discover`
and speaks the stateless 2026-07-28 revision. Run by cli/tests/mcp.rs as
`python session.py SEEDFALL_EXE KVLOG_DIR`; prints one JSON line per step
(name, seconds) and exits non-zero on the first failed check."""

import asyncio
import contextlib
import importlib.metadata
import inspect
import json
import os
import sys
import time

from mcp import StdioServerParameters

MAJOR = int(importlib.metadata.version("mcp").split(".")[0])

TOOLS = {
    "seedfall_run", "seedfall_status", "seedfall_findings", "seedfall_replay",
    "seedfall_shrink", "seedfall_cause", "seedfall_verify", "seedfall_inspect",
}
READ_ONLY = {"seedfall_status", "seedfall_findings", "seedfall_inspect", "seedfall_verify", "seedfall_replay"}


def step(name, started, **more):
    print(json.dumps({"step": name, "seconds": round(time.monotonic() - started, 2), **more}), flush=True)


def field(obj, camel, snake):
    """A field of a client type: camelCase attributes below 2, snake_case in 2.x."""
    return getattr(obj, snake) if MAJOR >= 2 else getattr(obj, camel)


async def call(session, tool, arguments, log=True, progress=None):
    started = time.monotonic()
    more = {}
    if progress and "progress_callback" in inspect.signature(session.call_tool).parameters:
        more["progress_callback"] = progress
    result = await session.call_tool(tool, arguments, **more)
    text = "".join(c.text for c in result.content if c.type == "text")
    assert not field(result, "isError", "is_error"), f"{tool} {arguments}: {text}"
    structured = field(result, "structuredContent", "structured_content")
    assert structured is not None, f"{tool}: no structuredContent"
    assert text, f"{tool}: no text content"
    if log:
        step(tool, started)
    return structured


@contextlib.asynccontextmanager
async def connected(params):
    """A connected session, and the revision, server name and instructions it got."""
    if MAJOR >= 2:
        from mcp import Client

        async with Client(params) as client:
            yield client, client.protocol_version, client.server_info.name, client.instructions
    else:
        from mcp import ClientSession
        from mcp.client.stdio import stdio_client

        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                yield session, init.protocolVersion, init.serverInfo.name, init.instructions


async def main(exe, kvlog):
    params = StdioServerParameters(command=exe, args=["mcp"], env=dict(os.environ), cwd=kvlog)
    started = time.monotonic()
    async with connected(params) as (session, version, name, instructions):
        assert version == ("2026-07-28" if MAJOR >= 2 else "2025-11-25"), version
        assert name == "seedfall", name
        for word in ("seedfall_run", "seedfall_shrink", "seedfall_cause", "seedfall_verify"):
            assert word in instructions, instructions
        tools = (await session.list_tools()).tools
        assert {t.name for t in tools} == TOOLS, [t.name for t in tools]
        for t in tools:
            schema = field(t, "outputSchema", "output_schema")
            assert schema and schema["type"] == "object", t.name
            assert field(t.annotations, "readOnlyHint", "read_only_hint") == (t.name in READ_ONLY), t.name
        step("connect+tools/list", started, tools=len(tools), protocol=version, mcp=MAJOR)

        progressed = []

        async def on_progress(progress, total, message):
            progressed.append((progress, total, message))

        started = time.monotonic()
        run = await call(session, "seedfall_run", {"config": "seedfall.json", "seeds": "1-50", "jobs": 2},
                         log=False, progress=on_progress)
        step("seedfall_run 1-50 (waits)", started, progress_notifications=len(progressed))
        assert run["state"] == "done" and run["failed"] > 0 and run["seeds"] == 50, run
        assert all(total == 50 for _, total, _ in progressed[1:]), progressed
        seed = run["lowest_failing_seed"]
        assert seed == run["lowest_failing_seeds"][0] and run["failures"] == [], run
        page = await call(session, "seedfall_status", {"handle": run["handle"], "limit": 3})
        assert [f["seed"] for f in page["failures"]] == run["lowest_failing_seeds"][:3], page

        findings = await call(session, "seedfall_findings", {"config": "seedfall.json"})
        ids = {f["id"] for f in findings["findings"] if f["status"] in ("new", "ongoing", "regressed")}
        assert {f["id"] for f in run["findings"]} <= ids, (run["findings"], findings)

        background = await call(session, "seedfall_run",
                                {"config": "seedfall.json", "seeds": "51-60", "jobs": 2, "background": True})
        handle = background["handle"]
        started = time.monotonic()
        polls = 0
        while True:
            status = await call(session, "seedfall_status", {"handle": handle}, log=False)
            polls += 1
            if status["state"] == "done":
                break
            assert status["state"] == "running", status
            await asyncio.sleep(0.5)
        step("sweep 51-60 (background, polled)", started, polls=polls)
        assert status["seeds"] == 10, status

        shrunk = await call(session, "seedfall_shrink", {"config": "seedfall.json", "seed": seed, "jobs": 2})
        assert 1 <= shrunk["after"]["faults"] <= 3, shrunk["after"]
        schedule = shrunk["schedule"]

        inspected = await call(session, "seedfall_inspect", {"faults": schedule})
        assert len(inspected["lines"]) == shrunk["after"]["faults"], inspected

        replayed = await call(session, "seedfall_replay",
                              {"config": "seedfall.json", "seed": seed, "faults": schedule,
                               "from_event": 0, "to_event": 5})
        assert replayed["verdict"] == "fail" and len(replayed["trace"]) == 5, replayed["verdict"]
        assert replayed["trace_lines"] > 5

        caused = await call(session, "seedfall_cause",
                            {"config": "seedfall.json", "seed": seed, "futures": 2, "moments": 2, "jobs": 2})
        assert caused["seed"] == seed and caused["moments"], caused

        verified = await call(session, "seedfall_verify", {"config": "seedfall.fixed.json", "faults": schedule})
        assert verified["verified"] is True, verified
        still = await call(session, "seedfall_verify", {"config": "seedfall.json", "faults": schedule})
        assert still["verified"] is False, still


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
