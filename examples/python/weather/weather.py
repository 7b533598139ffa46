"""weather: a typed tool. The input schema is derived from ``ForecastArgs``
and the arguments are checked and converted to it before the handler runs;
the result carries a text block and ``structured_content`` (declared with
``output_schema``). The forecast is made up from the city name: examples do
not use the network."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Annotated, List, Optional

from zot_ext import Extension, ToolOutput

ext = Extension("weather", "0.1.0")


@dataclass
class ForecastArgs:
    """Where and for how long."""

    city: Annotated[str, "The city to forecast."]
    days: Annotated[Optional[int], "How many days, 1 to 7 (3 by default)."] = None


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
def forecast_tool(args: ForecastArgs) -> ToolOutput:
    days = 3 if args.days is None else args.days
    if not 1 <= days <= 7:
        return ToolOutput.error("days must be between 1 and 7")
    f = forecast(args.city, days)
    text = "\n".join(f"day {d.day}: {d.high_c} °C, {d.sky}" for d in f.days)
    return ToolOutput.text(f"{f.city}:\n{text}").with_structured(asdict(f))


if __name__ == "__main__":
    ext.run()
