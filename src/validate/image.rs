//! Image data: data URIs, Base64, or files under the resource folder.
//! Nothing is ever read from the network or outside that folder.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;

use super::Validator;
use crate::model::ImageElement;

/// The folder image file names resolve in (`--resources DIR`).
#[derive(Debug, Clone)]
pub struct ResourceDir {
    root: PathBuf,
}

impl ResourceDir {
    /// Opens a resource folder; its canonical path bounds every lookup.
    pub fn new(path: &Path) -> std::io::Result<Self> {
        Ok(Self {
            root: path.canonicalize()?,
        })
    }

    /// Reads a file by its request name. The name is already known to match
    /// `^[A-Za-z0-9_./-]+\.(ext)$`; `..`, absolute paths and links that leave
    /// the folder are refused.
    pub fn read(&self, name: &str, max_bytes: usize) -> Result<Vec<u8>, String> {
        if name.starts_with('/') || name.split('/').any(|part| part == ".." || part.is_empty()) {
            return Err(format!(
                "`{name}` must be a plain relative name inside the resource folder"
            ));
        }
        let path = self.root.join(name);
        let real = path
            .canonicalize()
            .map_err(|_| format!("no resource file `{name}`"))?;
        if !real.starts_with(&self.root) {
            return Err(format!("`{name}` leaves the resource folder"));
        }
        let meta = std::fs::metadata(&real).map_err(|_| format!("no resource file `{name}`"))?;
        if !meta.is_file() {
            return Err(format!("`{name}` is not a file"));
        }
        if meta.len() as usize > max_bytes {
            return Err(format!("`{name}` is larger than {max_bytes} bytes"));
        }
        std::fs::read(&real).map_err(|e| format!("cannot read `{name}`: {e}"))
    }
}

/// The image formats the renderer embeds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageKind {
    Png,
    Jpg,
    Gif,
    Webp,
    Svg,
}

impl ImageKind {
    /// Sniffs the type from the bytes.
    pub fn sniff(bytes: &[u8]) -> Option<ImageKind> {
        if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(ImageKind::Png)
        } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
            Some(ImageKind::Jpg)
        } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
            Some(ImageKind::Gif)
        } else if bytes.len() >= 12 && &bytes[0..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            Some(ImageKind::Webp)
        } else {
            let head = String::from_utf8_lossy(&bytes[..bytes.len().min(1024)]);
            let head = head.trim_start_matches('\u{feff}').trim_start();
            (head.starts_with("<svg") || head.starts_with("<?xml") && head.contains("<svg"))
                .then_some(ImageKind::Svg)
        }
    }

    /// Whether a request's `format` names this kind.
    fn matches(self, format: &str) -> bool {
        let f = format.to_ascii_lowercase();
        match self {
            ImageKind::Png => f == "png",
            ImageKind::Jpg => f == "jpg" || f == "jpeg",
            ImageKind::Gif => f == "gif",
            ImageKind::Webp => f == "webp",
            ImageKind::Svg => f == "svg",
        }
    }
}

/// Decoded, checked image bytes, ready for the engine.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedImage {
    pub kind: ImageKind,
    pub bytes: Arc<Vec<u8>>,
    /// Intrinsic size in pixels (raster) or user units (SVG), for `contain`/`cover` fits.
    pub width: f64,
    pub height: f64,
}

fn is_file_name(data: &str) -> bool {
    let Some((stem, ext)) = data.rsplit_once('.') else {
        return false;
    };
    !stem.is_empty()
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"_./-".contains(&b))
        && ["png", "jpg", "jpeg", "webp", "gif", "svg"].contains(&ext)
}

/// Decodes the `data` field: data URI, resource file name, or Base64.
fn image_bytes(data: &str, validator: &Validator) -> Result<Vec<u8>, String> {
    let max = validator.env.config.limits.image_bytes;
    let b64 = |text: &str| {
        let cleaned: String = text.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        if cleaned.len() / 4 * 3 > max + 3 {
            return Err(format!("the image is larger than {max} bytes"));
        }
        base64::engine::general_purpose::STANDARD
            .decode(cleaned.as_bytes())
            .map_err(|e| {
                format!("`data` is neither a data URI, a resource file name nor valid Base64 ({e})")
            })
    };
    if let Some(rest) = data.strip_prefix("data:") {
        let (header, payload) = rest
            .split_once(',')
            .ok_or("a data URI needs a `,` before its data")?;
        if header.ends_with(";base64") {
            b64(payload)
        } else {
            Ok(percent_decode(payload))
        }
    } else if is_file_name(data) {
        match validator.env.resources {
            Some(dir) => dir.read(data, max),
            None => Err(format!(
                "`{data}` names a resource file, but no resource folder is configured"
            )),
        }
    } else {
        b64(data)
    }
}

fn percent_decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(v) = u8::from_str_radix(&text[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

/// Intrinsic size of an SVG from its width/height or viewBox attributes; 1:1 when unknown.
fn svg_size(bytes: &[u8]) -> (f64, f64) {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]);
    let Some(start) = text.find("<svg") else {
        return (1.0, 1.0);
    };
    let tag = &text[start..text[start..].find('>').map_or(text.len(), |e| start + e)];
    let attr = |name: &str| {
        let key = format!(" {name}=\"");
        let i = tag.find(&key)? + key.len();
        Some(tag[i..].split('"').next()?.to_string())
    };
    if let Some(vb) = attr("viewBox") {
        let v: Vec<f64> = vb
            .split([' ', ','])
            .filter_map(|s| s.parse().ok())
            .collect();
        if v.len() == 4 && v[2] > 0.0 && v[3] > 0.0 {
            return (v[2], v[3]);
        }
    }
    let num = |s: Option<String>| {
        s.and_then(|s| {
            s.trim_end_matches(|c: char| c.is_alphabetic())
                .parse::<f64>()
                .ok()
        })
    };
    match (num(attr("width")), num(attr("height"))) {
        (Some(w), Some(h)) if w > 0.0 && h > 0.0 => (w, h),
        _ => (1.0, 1.0),
    }
}

impl Validator<'_> {
    pub(crate) fn image_rules(&mut self, path: &str, image: &ImageElement) {
        let bytes = match image_bytes(&image.data, self) {
            Ok(b) => b,
            Err(message) => return self.push(format!("{path}.data"), message),
        };
        let Some(kind) = ImageKind::sniff(&bytes) else {
            return self.push(
                format!("{path}.data"),
                "the data is not a PNG, JPEG, GIF, WebP or SVG image",
            );
        };
        if let Some(format) = &image.format {
            if !["png", "jpg", "jpeg", "gif", "webp", "svg"]
                .contains(&format.to_ascii_lowercase().as_str())
            {
                return self.push(
                    format!("{path}.format"),
                    "must be png, jpg, jpeg, gif, webp or svg",
                );
            }
            if !kind.matches(format) {
                return self.push(
                    format!("{path}.format"),
                    format!("says `{format}` but the data is {kind:?}"),
                );
            }
        }
        let (width, height) = if kind == ImageKind::Svg {
            svg_size(&bytes)
        } else {
            match imagesize::blob_size(&bytes) {
                Ok(size) => (size.width as f64, size.height as f64),
                Err(_) => {
                    return self.push(format!("{path}.data"), "the image header cannot be read")
                }
            }
        };
        let pixels = (width * height) as u64;
        let limit = self.env.config.limits.image_pixels;
        if kind != ImageKind::Svg && (pixels > limit || width < 1.0 || height < 1.0) {
            return self.push(
                format!("{path}.data"),
                format!("the image has {pixels} pixels; at most {limit} are allowed"),
            );
        }
        let loaded = LoadedImage {
            kind,
            bytes: Arc::new(bytes),
            width,
            height,
        };
        // Validation hands the decoded image to the lowering step through the element.
        let _ = image.loaded.set(Arc::new(loaded));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_follow_the_decisions_pattern() {
        assert!(is_file_name("logo.png"));
        assert!(is_file_name("img/logo-2.svg"));
        assert!(!is_file_name("logo.exe"));
        assert!(!is_file_name("iVBORw0KGgo="));
        assert!(!is_file_name("a b.png"));
    }

    #[test]
    fn resource_reads_cannot_leave_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("ok.png"), b"x").unwrap();
        let res = ResourceDir::new(dir.path()).unwrap();
        assert_eq!(res.read("ok.png", 10).unwrap(), b"x");
        assert!(res.read("../ok.png", 10).is_err());
        assert!(res.read("/etc/passwd.png", 10).is_err());
        assert!(res.read("missing.png", 10).is_err());
        assert!(res.read("ok.png", 0).is_err());
    }
}
