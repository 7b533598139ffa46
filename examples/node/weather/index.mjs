// `weather`: a tool with a JSON Schema for its arguments, checked arguments
// (a wrong field is answered with an error result naming it), and
// structured content for programmatic callers next to the text the model
// reads.
import { pathToFileURL } from "node:url";

import { Extension, ToolOutput } from "zot-ext";

const SKIES = ["sunny", "cloudy", "rain", "windy"];

/** A deterministic made-up forecast (no network in an example). */
export function forecast(city, days) {
  let seed = 7;
  for (const b of Buffer.from(city)) {
    seed = (Math.imul(seed, 31) + b) >>> 0;
  }
  return {
    city,
    days: Array.from({ length: days }, (_, i) => {
      const d = i + 1;
      return { day: d, high_c: 10 + ((seed >>> d) % 20), sky: SKIES[(seed >>> (2 * d)) % 4] };
    }),
  };
}

export function extension() {
  return new Extension("weather", "0.1.0").tool(
    {
      name: "forecast",
      description: "Weather forecast for a city",
      schema: {
        type: "object",
        properties: {
          city: { type: "string", description: 'City name, e.g. "Lisbon".' },
          days: { type: "integer", minimum: 1, maximum: 7, description: "Number of days (1 to 7, default 3)." },
        },
        required: ["city"],
      },
      outputSchema: {
        type: "object",
        properties: {
          city: { type: "string" },
          days: {
            type: "array",
            items: {
              type: "object",
              properties: { day: { type: "integer" }, high_c: { type: "integer" }, sky: { type: "string" } },
            },
          },
        },
      },
    },
    // The engine checked the arguments against the schema (`city`
    // required, `days` 1 to 7) before this runs.
    ({ city, days = 3 }) => {
      const f = forecast(city, days);
      const lines = f.days.map((d) => `day ${d.day}: ${d.high_c} °C, ${d.sky}`);
      return ToolOutput.text(`${f.city}:\n${lines.join("\n")}`).withStructured(f);
    },
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  await extension().run();
}
