//! A targeted edit of one top-level boolean in JSON text (`enabled` in
//! `extension.json`, HOST-181): the value is replaced in place, or the key is
//! appended after the last member with the file's own indentation and
//! spacing. Everything else in the file is kept byte for byte.

/// Why the text could not be edited.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// The text is not valid JSON.
    #[error("not valid JSON ({0}); fix the file by hand first")]
    Invalid(String),
    /// The top-level value is not an object.
    #[error("the top-level JSON value is not an object; fix the file by hand first")]
    NotAnObject,
}

/// One top-level member: the key's span (quotes included) and the value's.
#[derive(Debug, Clone, Copy)]
struct Member {
    key_start: usize,
    key_end: usize,
    value_start: usize,
    value_end: usize,
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn string(&mut self) {
        // At the opening quote; the text is known to be valid JSON.
        self.i += 1;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    return;
                }
                _ => self.i += 1,
            }
        }
    }

    fn value(&mut self) {
        match self.b.get(self.i) {
            Some(b'"') => self.string(),
            Some(b'{') | Some(b'[') => {
                let mut depth = 0usize;
                while self.i < self.b.len() {
                    match self.b[self.i] {
                        b'"' => {
                            self.string();
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                self.i += 1;
                                return;
                            }
                        }
                        _ => {}
                    }
                    self.i += 1;
                }
            }
            _ => {
                while self.i < self.b.len()
                    && !matches!(
                        self.b[self.i],
                        b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'
                    )
                {
                    self.i += 1;
                }
            }
        }
    }
}

/// The top-level members, the offset of the opening `{` and of the closing `}`.
fn members(text: &str) -> Result<(Vec<Member>, usize, usize), EditError> {
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| EditError::Invalid(e.to_string()))?;
    if !v.is_object() {
        return Err(EditError::NotAnObject);
    }
    let mut s = Scanner {
        b: text.as_bytes(),
        i: 0,
    };
    s.ws();
    let open = s.i;
    s.i += 1;
    let mut out = Vec::new();
    loop {
        s.ws();
        if s.b.get(s.i) == Some(&b'}') {
            return Ok((out, open, s.i));
        }
        let key_start = s.i;
        s.string();
        let key_end = s.i;
        s.ws();
        s.i += 1; // ':'
        s.ws();
        let value_start = s.i;
        s.value();
        out.push(Member {
            key_start,
            key_end,
            value_start,
            value_end: s.i,
        });
        s.ws();
        if s.b.get(s.i) == Some(&b',') {
            s.i += 1;
        }
    }
}

/// Sets the top-level `key` of the JSON object `text` to `value`, editing
/// only that value (every occurrence, should the key be duplicated) or
/// appending the member when absent.
pub fn set_bool(text: &str, key: &str, value: bool) -> Result<String, EditError> {
    let (ms, open, close) = members(text)?;
    let lit = if value { "true" } else { "false" };
    let is_key = |m: &Member| {
        serde_json::from_str::<String>(&text[m.key_start..m.key_end]).is_ok_and(|k| k == key)
    };
    let hits: Vec<&Member> = ms.iter().filter(|m| is_key(m)).collect();
    if !hits.is_empty() {
        let mut out = text.to_owned();
        for m in hits.iter().rev() {
            out.replace_range(m.value_start..m.value_end, lit);
        }
        return Ok(out);
    }
    let quoted = serde_json::to_string(key).unwrap_or_else(|_| format!("\"{key}\""));
    let Some(last) = ms.last() else {
        // `{}` or `{ \n }`: a member on its own line when the braces are on
        // different lines.
        let inner = &text[open + 1..close];
        let member = if inner.contains('\n') {
            format!("\n  {quoted}: {lit}\n")
        } else {
            format!("{quoted}: {lit}")
        };
        let mut out = text.to_owned();
        out.replace_range(open + 1..close, &member);
        return Ok(out);
    };
    // Copy the layout of the last member: the whitespace before its key
    // (after the preceding `,` or `{`) and the text between key and value.
    let before_key = text[..last.key_start]
        .rfind([',', '{'])
        .map_or("", |p| &text[p + 1..last.key_start]);
    let sep = &text[last.key_end..last.value_start];
    let lead = if before_key.is_empty() && ms.len() > 1 {
        // `{"a":1,"b":2}` style: no space after commas.
        ""
    } else if before_key.is_empty() {
        " "
    } else {
        before_key
    };
    let mut out = text.to_owned();
    out.insert_str(last.value_end, &format!(",{lead}{quoted}{sep}{lit}"));
    Ok(out)
}

/// The top-level boolean `key`, if present.
pub fn get_bool(text: &str, key: &str) -> Option<bool> {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()?
        .get(key)?
        .as_bool()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_in_place_and_keeps_the_rest() {
        let t = "{\n    \"name\": \"x\",  // not json\n}";
        assert!(matches!(
            set_bool(t, "enabled", true),
            Err(EditError::Invalid(_))
        ));
        let t =
            "{\n    \"name\": \"x\",\n    \"enabled\" :  true ,\n    \"args\": [\"{\", \"]\"]\n}\n";
        let out = set_bool(t, "enabled", false).unwrap();
        assert_eq!(
            out,
            "{\n    \"name\": \"x\",\n    \"enabled\" :  false ,\n    \"args\": [\"{\", \"]\"]\n}\n"
        );
        assert_eq!(get_bool(&out, "enabled"), Some(false));
    }

    #[test]
    fn appends_with_the_file_layout() {
        let t = "{\n\t\"name\": \"x\",\n\t\"nested\": {\"enabled\": true}\n}\n";
        assert_eq!(
            set_bool(t, "enabled", false).unwrap(),
            "{\n\t\"name\": \"x\",\n\t\"nested\": {\"enabled\": true},\n\t\"enabled\": false\n}\n"
        );
        assert_eq!(
            set_bool(r#"{"name":"x","exec":"y"}"#, "enabled", false).unwrap(),
            r#"{"name":"x","exec":"y","enabled":false}"#
        );
        assert_eq!(
            set_bool(r#"{"name": "x"}"#, "enabled", true).unwrap(),
            r#"{"name": "x", "enabled": true}"#
        );
        assert_eq!(
            set_bool("{}", "enabled", true).unwrap(),
            r#"{"enabled": true}"#
        );
        assert_eq!(
            set_bool("{\n}\n", "enabled", true).unwrap(),
            "{\n  \"enabled\": true\n}\n"
        );
        assert!(matches!(
            set_bool("[1]", "enabled", true),
            Err(EditError::NotAnObject)
        ));
    }

    #[test]
    fn escaped_keys_and_strings_are_understood() {
        let t = r#"{"d": "say \"enabled\": 1", "en\u0061bled": false}"#;
        assert_eq!(
            set_bool(t, "enabled", true).unwrap(),
            r#"{"d": "say \"enabled\": 1", "en\u0061bled": true}"#
        );
    }
}
