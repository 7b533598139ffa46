"""weather: a typed tool whose arguments are keyword parameters. The input
schema is derived from their type hints (``days`` bounded 1 to 7 by a JSON
Schema fragment, so the engine refuses ``days: 9`` as the Node and Rust
examples do) and the arguments are converted to them before the handler
runs; the result carries a text block and ``structured_content`` (declared
with ``output_schema``). The forecast is made up from the city name:
examples do not use the network."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Annotated, List

from zot_ext import Extension, ToolOutput

ext = Extension("weather", "0.1.0")


@dataclass
class Day:
    day: int
    high_c: int
    sky: str


@dataclass
class Forecast:
    city: str
    days: List[Day]


OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "days": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "day": {"type": "integer"},
                    "high_c": {"type": "integer"},
                    "sky": {"type": "string"},
                },
            },
        },
    },
}

SKIES = ["sunny", "cloudy", "rain", "windy"]


def forecast(city: str, days: int) -> Forecast:
    seed = 7
    for b in city.encode("utf-8"):
        seed = (seed * 31 + b) & 0xFFFFFFFF
    return Forecast(
        city=city,
        days=[
            Day(day=d, high_c=10 + (seed >> d) % 20, sky=SKIES[(seed >> (2 * d)) % 4])
            for d in range(1, days + 1)
        ],
    )


@ext.tool("forecast", "Weather forecast for a city", output_schema=OUTPUT_SCHEMA)
def forecast_tool(
    city: Annotated[str, 'City name, e.g. "Lisbon".'],
    days: Annotated[int, "Number of days (1 to 7, default 3).", {"minimum": 1, "maximum": 7}] = 3,
) -> ToolOutput:
    f = forecast(city, days)
    text = "\n".join(f"day {d.day}: {d.high_c} °C, {d.sky}" for d in f.days)
    return ToolOutput.text(f"{f.city}:\n{text}").with_structured(asdict(f))


if __name__ == "__main__":
    ext.run()
