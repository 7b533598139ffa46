"""A FastMCP server written with the official `mcp` Python package, as
Python users write them: typed tools (one with structured output), a
prompt with an argument and a resource."""

from mcp.server.fastmcp import FastMCP

app = FastMCP("py-notes", instructions="Notes kept in memory.")
notes: dict[str, str] = {}


@app.tool()
def add_note(title: str, body: str) -> str:
    """Store a note under a title."""
    notes[title] = body
    return f"stored {title}"


@app.tool()
def count_words(text: str) -> dict[str, int]:
    """Count the words of a text."""
    return {"words": len(text.split())}


@app.tool()
def fail(reason: str) -> str:
    """Always raises."""
    raise ValueError(reason)


@app.prompt()
def summarize(topic: str) -> str:
    """Ask for a summary of a topic."""
    return f"Summarize {topic} in one line."


@app.resource("notes://all", description="Every note")
def all_notes() -> str:
    return "\n".join(f"{t}: {b}" for t, b in notes.items()) or "(no notes)"


if __name__ == "__main__":
    app.run()
