//! `weather`: a typed tool. The input schema comes from the argument type
//! (schemars; `days` bounded 1 to 7, as in the Node and Python examples),
//! the engine checks every call against it (a wrong field is answered with
//! an error naming it), arguments are decoded into the type, and the result carries structured content for
//! programmatic callers next to the text the model reads.

use serde::{Deserialize, Serialize};
use zot_ext::{Extension, ToolOutput, ToolSpec};

/// Arguments of `forecast`.
#[derive(Deserialize, schemars::JsonSchema)]
struct ForecastArgs {
    /// City name, e.g. "Lisbon".
    city: String,
    /// Number of days (1 to 7, default 3).
    #[serde(default)]
    #[schemars(range(min = 1, max = 7))]
    days: Option<u8>,
}

/// One day of the forecast.
#[derive(Serialize, schemars::JsonSchema)]
struct Day {
    day: u8,
    high_c: i32,
    sky: &'static str,
}

/// The structured result.
#[derive(Serialize, schemars::JsonSchema)]
struct Forecast {
    city: String,
    days: Vec<Day>,
}

/// A deterministic made-up forecast (no network in an example).
fn forecast(city: &str, days: u8) -> Forecast {
    let seed = city
        .bytes()
        .fold(7u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
    let skies = ["sunny", "cloudy", "rain", "windy"];
    Forecast {
        city: city.to_owned(),
        days: (1..=days)
            .map(|d| Day {
                day: d,
                high_c: 10 + ((seed >> d) % 20) as i32,
                sky: skies[((seed >> (2 * d)) % 4) as usize],
            })
            .collect(),
    }
}

fn extension() -> Extension {
    let spec =
        ToolSpec::new("forecast", "Weather forecast for a city").output_schema_for::<Forecast>();
    Extension::new("weather", "0.1.0").tool_with(spec, |args: ForecastArgs, _ctx| async move {
        // The engine refused anything outside 1..=7 (the schema's range).
        let f = forecast(&args.city, args.days.unwrap_or(3));
        let text = f
            .days
            .iter()
            .map(|d| format!("day {}: {} °C, {}", d.day, d.high_c, d.sky))
            .collect::<Vec<_>>()
            .join("\n");
        ToolOutput::text(format!("{}:\n{text}", f.city)).with_structured(&f)
    })
}

fn main() -> Result<(), zot_ext::RunError> {
    extension().run_blocking()
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use zot_ext::testing::TestHost;

    #[tokio::test]
    async fn typed_arguments_schema_and_structured_result() {
        let mut host = TestHost::start(super::extension()).await.unwrap();
        let tool = &host.registration().tools[0];
        assert!(tool.schema.get().contains(r#""required":["city"]"#));
        assert!(tool
            .output_schema
            .as_ref()
            .unwrap()
            .get()
            .contains("high_c"));
        let r = host
            .tool("forecast", json!({"city": "Lisbon", "days": 2}))
            .await
            .unwrap();
        assert!(!r.is_error);
        assert!(r.content[0]
            .as_text()
            .unwrap()
            .starts_with("Lisbon:\nday 1:"));
        let data: serde_json::Value = r.structured_content.unwrap().parse().unwrap();
        assert_eq!(data["days"].as_array().unwrap().len(), 2);
        let r = host
            .tool("forecast", json!({"town": "Lisbon"}))
            .await
            .unwrap();
        assert!(
            r.is_error
                && r.content[0]
                    .as_text()
                    .unwrap()
                    .contains("missing field `city`")
        );
        let r = host
            .tool("forecast", json!({"city": "Lisbon", "days": 9}))
            .await
            .unwrap();
        assert!(r.is_error);
        assert_eq!(
            r.content[0].as_text().unwrap(),
            "invalid arguments: field `days`: 9 is greater than the maximum of 7"
        );
    }
}
