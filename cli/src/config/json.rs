//! An ordered JSON value for the config walker. Objects keep their fields in
//! document order as a `Vec` (so errors are reported in the order the user
//! wrote them and `env` keeps its order without a hash map), and a field given
//! twice in one object is rejected while parsing, where serde_json still knows
//! the line and column. serde_json's own `Value` would sort the keys and keep
//! only the last of two duplicates, silently.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Json {
    Null,
    Bool(bool),
    /// A non-negative integer.
    UInt(u64),
    /// A negative integer.
    Int(i64),
    /// Any other number (a fraction, an exponent, or too large for u64).
    Float(f64),
    Str(String),
    Array(Vec<Json>),
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The value as an f64, if it is a number.
    pub(super) fn as_f64(&self) -> Option<f64> {
        match *self {
            Json::UInt(n) => Some(n as f64),
            Json::Int(n) => Some(n as f64),
            Json::Float(f) => Some(f),
            _ => None,
        }
    }

    /// How an error message shows the value that was found: scalars as
    /// written (strings quoted, long ones cut), containers by their kind.
    pub(super) fn found(&self) -> String {
        match self {
            Json::Null => "null".into(),
            Json::Bool(b) => b.to_string(),
            Json::UInt(n) => n.to_string(),
            Json::Int(n) => n.to_string(),
            Json::Float(f) => f.to_string(),
            Json::Str(s) => quote(s),
            Json::Array(_) => "an array".into(),
            Json::Object(_) => "an object".into(),
        }
    }
}

/// A string as JSON writes it, cut to 40 characters.
pub(super) fn quote(s: &str) -> String {
    const MAX: usize = 40;
    if s.chars().count() <= MAX {
        serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
    } else {
        let cut: String = s.chars().take(MAX).collect();
        let quoted = serde_json::to_string(&cut).unwrap_or_else(|_| format!("{cut:?}"));
        format!("{}…\"", &quoted[..quoted.len() - 1])
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Json, D::Error> {
        deserializer.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json, E> {
        Ok(Json::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Json, E> {
        Ok(if v >= 0 { Json::UInt(v as u64) } else { Json::Int(v) })
    }

    fn visit_u64<E>(self, v: u64) -> Result<Json, E> {
        Ok(Json::UInt(v))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Json, E> {
        Ok(Json::Float(v))
    }

    fn visit_str<E>(self, v: &str) -> Result<Json, E> {
        Ok(Json::Str(v.to_owned()))
    }

    fn visit_string<E>(self, v: String) -> Result<Json, E> {
        Ok(Json::Str(v))
    }

    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_none<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Json>()? {
            items.push(item);
        }
        Ok(Json::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json, A::Error> {
        let mut fields: Vec<(String, Json)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if fields.iter().any(|(k, _)| *k == key) {
                // serde_json appends " at line L column C".
                return Err(de::Error::custom(format_args!("field `{key}` is given twice in one object")));
            }
            let value = map.next_value::<Json>()?;
            fields.push((key, value));
        }
        Ok(Json::Object(fields))
    }
}
