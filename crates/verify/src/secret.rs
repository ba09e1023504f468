//! Token secrets, ids and their digests (docs/admin-api.md): `lp_` + 32
//! base62 characters from the OS RNG; stored only as SHA-256; the first 8
//! characters are the hint lists show; ids are `tok_` + 12 base62 characters.

use rand::rngs::OsRng;
use rand::Rng;

const BASE62: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const SECRET_PREFIX: &str = "lp_";
const SECRET_BODY_LEN: usize = 32;
const ID_PREFIX: &str = "tok_";
const ID_BODY_LEN: usize = 12;
/// Characters of the secret shown in lists to tell tokens apart.
pub const HINT_LEN: usize = 8;

/// `len` base62 characters, uniformly drawn (no modulo bias) from the OS RNG.
fn base62(len: usize) -> String {
    (0..len)
        .map(|_| BASE62[OsRng.gen_range(0..BASE62.len())] as char)
        .collect()
}

/// A new token secret, `lp_` + 32 base62 characters (190 bits).
pub fn new_secret() -> String {
    format!("{SECRET_PREFIX}{}", base62(SECRET_BODY_LEN))
}

/// A new token id, `tok_` + 12 base62 characters. Not a secret.
pub fn new_id() -> String {
    format!("{ID_PREFIX}{}", base62(ID_BODY_LEN))
}

/// A generated admin token; the `lpa_` prefix keeps it apart from API tokens.
pub fn new_admin_token() -> String {
    format!("lpa_{}", base62(SECRET_BODY_LEN))
}

/// Whether `token` has the shape of a secret; anything else is refused
/// without a store lookup.
pub fn well_formed(token: &str) -> bool {
    token.len() == SECRET_PREFIX.len() + SECRET_BODY_LEN
        && token.starts_with(SECRET_PREFIX)
        && token[SECRET_PREFIX.len()..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric())
}

/// Whether `id` has the shape of a token id.
pub fn well_formed_id(id: &str) -> bool {
    id.len() == ID_PREFIX.len() + ID_BODY_LEN
        && id.starts_with(ID_PREFIX)
        && id[ID_PREFIX.len()..]
            .bytes()
            .all(|b| b.is_ascii_alphanumeric())
}

/// The first characters of a secret, which lists show.
pub fn hint(secret: &str) -> String {
    secret.chars().take(HINT_LEN).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_have_the_documented_shape_and_differ() {
        let a = new_secret();
        let b = new_secret();
        assert!(well_formed(&a), "{a}");
        assert_eq!(a.len(), 35);
        assert_ne!(a, b);
        assert_eq!(hint(&a), a[..8]);
    }

    #[test]
    fn malformed_secrets_are_refused() {
        for bad in [
            "",
            "lp_",
            "lp_abc",
            "xx_0123456789ABCDEFGHIJKLMNOPQRSTUV",
            "lp_0123456789ABCDEFGHIJKLMNOPQRSTU-",
            "lp_0123456789ABCDEFGHIJKLMNOPQRSTUVW",
        ] {
            assert!(!well_formed(bad), "{bad:?}");
        }
        assert!(well_formed("lp_0123456789ABCDEFGHIJKLMNOPQRSTUV"));
    }

    #[test]
    fn ids_have_the_documented_shape() {
        let id = new_id();
        assert!(well_formed_id(&id), "{id}");
        assert_eq!(id.len(), 16);
        assert!(!well_formed_id("tok_short"));
    }
}
