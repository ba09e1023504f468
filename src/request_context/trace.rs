//! W3C Trace Context (`traceparent`, version 00): a caller's trace is read
//! so its trace id appears in this request's log lines, and is passed on to
//! the remote verifier with this node's own span as the parent. An invalid
//! header is ignored, as the recommendation asks: it neither fails the
//! request nor reaches the log.

/// A valid `traceparent`: `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceParent {
    /// 32 lowercase hex digits, not all zero.
    pub trace_id: String,
    /// The caller's span: 16 lowercase hex digits, not all zero.
    pub parent_id: String,
    /// Trace flags (bit 0: sampled), carried on unchanged.
    pub flags: u8,
}

impl TraceParent {
    /// The header's value, or `None` when it is not a valid version-00
    /// `traceparent` (length, lowercase hex, all-zero ids, separators).
    pub fn parse(value: &str) -> Option<TraceParent> {
        let mut parts = value.split('-');
        let (version, trace_id, parent_id, flags) =
            (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
        let valid = parts.next().is_none()
            && version == "00"
            && is_id(trace_id, 32)
            && is_id(parent_id, 16)
            && is_lower_hex(flags, 2);
        valid.then(|| TraceParent {
            trace_id: trace_id.to_string(),
            parent_id: parent_id.to_string(),
            flags: u8::from_str_radix(flags, 16).unwrap_or(0),
        })
    }

    /// The header for a call made within this trace from the span `span_id`.
    pub fn child_header(&self, span_id: &str) -> String {
        format!("00-{}-{span_id}-{:02x}", self.trace_id, self.flags)
    }
}

/// A fresh span id for this node's part of a trace: 16 hex digits, never
/// all zero (the all-zero id is invalid).
pub fn new_span_id() -> String {
    let id = loop {
        let id: u64 = rand::random();
        if id != 0 {
            break id;
        }
    };
    format!("{id:016x}")
}

fn is_lower_hex(text: &str, len: usize) -> bool {
    text.len() == len && text.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn is_id(text: &str, len: usize) -> bool {
    is_lower_hex(text, len) && text.bytes().any(|b| b != b'0')
}

#[cfg(test)]
mod tests {
    use super::*;

    const VALID: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn a_valid_traceparent_gives_its_ids_and_flags() {
        let parent = TraceParent::parse(VALID).unwrap();
        assert_eq!(parent.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(parent.parent_id, "00f067aa0ba902b7");
        assert_eq!(parent.flags, 1);
        assert_eq!(
            parent.child_header("1111111111111111"),
            "00-4bf92f3577b34da6a3ce929d0e0e4736-1111111111111111-01"
        );
    }

    #[test]
    fn invalid_traceparents_are_ignored() {
        for value in [
            "",
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-1",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0g",
            "00-4bf92f3577b34da6a3ce929d0e0e47z6-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736\n-00f067aa0ba902b7-01",
        ] {
            assert_eq!(TraceParent::parse(value), None, "{value:?}");
        }
    }

    #[test]
    fn span_ids_are_sixteen_hex_digits_and_never_zero() {
        for _ in 0..100 {
            let id = new_span_id();
            assert!(is_id(&id, 16), "{id}");
        }
    }
}
