//! The backstop around third-party encoders: inputs are validated before
//! they get here, but a panic inside rxing or anyd must still become an
//! error, never a dead worker.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::BarcodeError;

/// Run `f`, turning a panic into [`BarcodeError::EncoderFailure`].
pub(crate) fn guarded<T>(
    symbology: &'static str,
    f: impl FnOnce() -> Result<T, BarcodeError>,
) -> Result<T, BarcodeError> {
    // The closures only build fresh values from their inputs; nothing
    // shared is left half-updated when they unwind.
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(Err(BarcodeError::EncoderFailure { symbology }))
}

/// An rxing refusal after our own validation passed: capacity of the chosen
/// version/size/layers.
pub(crate) fn rejected(symbology: &'static str, e: rxing::Exceptions) -> BarcodeError {
    BarcodeError::DoesNotFit {
        symbology,
        reason: describe(&e),
    }
}

fn describe(e: &rxing::Exceptions) -> String {
    let text = e.to_string();
    // rxing prefixes messages with its exception kind; keep the message.
    match text.split_once(": ") {
        Some((_, msg)) if !msg.trim().is_empty() => msg.trim().to_string(),
        _ => text,
    }
}
