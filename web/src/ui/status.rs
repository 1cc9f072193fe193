//! `/status` for a browser: the same facts as the JSON answer, plus disk use per index.

use crate::pages::layout::Layout;
use crate::WebError;
use askama::Template;

/// Disk use of one index (column family).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexSize {
    /// Index name.
    pub name: String,
    /// Bytes on disk plus bytes in memory not yet written.
    pub bytes: u64,
    /// Estimated number of keys.
    pub keys: u64,
}

/// The data of the status page.
#[derive(Debug, Clone, Template)]
#[template(path = "ui/status.html")]
pub struct StatusPage {
    /// The shared layout.
    pub layout: Layout,
    /// (name, value) of every field of the JSON status, in its order.
    pub facts: Vec<(String, String)>,
    /// Index sizes.
    pub indexes: Vec<IndexSize>,
}

impl StatusPage {
    /// The page as HTML.
    pub fn to_html(&self) -> Result<String, WebError> {
        Ok(self.render()?)
    }
}

/// A byte count for people (`1.5 MiB`).
pub fn human_bytes(bytes: &u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = *bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn bytes_read_in_binary_units() {
        assert_eq!(super::human_bytes(&512), "512 B");
        assert_eq!(super::human_bytes(&(3 * 1024 * 1024 / 2)), "1.5 MiB");
    }
}
