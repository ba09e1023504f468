//! The render route's token cache and blacklist (docs/http-api.md, "Authentication and usage"), in
//! sled trees under `<data-dir>/render/`. Keys are SHA-256 hashes of tokens;
//! the plain token is never stored here.

use serde::{Deserialize, Serialize};

use crate::credential::{Owner, TokenHash};
use crate::verify::RateLimit;

/// What the cache knows about a verified token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Balance as the verifier last reported it, minus the usage recorded
    /// locally since (reported or not). Counted down once per admitted render.
    pub balance: u64,
    /// Unix ms after which the entry is stale: verification time + TTL,
    /// or the token's own expiry if sooner.
    pub fresh_until: i64,
    pub rate_limit: Option<RateLimit>,
    /// Whose stored templates the token sees. Required: an entry cached
    /// before owners were decodes as none, a miss, and is verified again.
    pub owner: Owner,
}

/// Result of [`TokenCache::blacklisted`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blacklisted {
    No,
    /// 403 at once.
    Yes,
    /// Still blacklisted, but due to be asked about again.
    Recheck,
}

/// Result of [`TokenCache::reserve`].
#[derive(Debug, PartialEq, Eq)]
pub enum Reserve {
    /// One unit reserved from a fresh entry.
    Hit(Entry),
    /// No fresh entry, or its balance would go below zero: verify.
    Miss,
}

pub struct TokenCache {
    entries: sled::Tree,
    blacklist: sled::Tree,
}

fn decode<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Option<T> {
    serde_json::from_slice(bytes).ok()
}

fn encode<T: Serialize>(value: &T) -> Vec<u8> {
    serde_json::to_vec(value).unwrap_or_default()
}

impl TokenCache {
    pub fn open(db: &sled::Db) -> sled::Result<TokenCache> {
        Ok(TokenCache {
            entries: db.open_tree("token_cache")?,
            blacklist: db.open_tree("token_blacklist")?,
        })
    }

    /// Takes one unit from a fresh entry with a positive balance, atomically.
    pub fn reserve(&self, hash: &TokenHash, now: i64) -> sled::Result<Reserve> {
        let mut hit = None;
        self.entries.fetch_and_update(hash.0, |old| {
            hit = None;
            let mut entry: Entry = old.and_then(decode)?;
            if entry.fresh_until <= now || entry.balance == 0 {
                return old.map(<[u8]>::to_vec);
            }
            entry.balance -= 1;
            hit = Some(entry.clone());
            Some(encode(&entry))
        })?;
        Ok(hit.map_or(Reserve::Miss, Reserve::Hit))
    }

    /// Gives a reserved unit back (the render failed or was refused).
    pub fn refund(&self, hash: &TokenHash) -> sled::Result<()> {
        self.entries.fetch_and_update(hash.0, |old| {
            let mut entry: Entry = old.and_then(decode)?;
            entry.balance += 1;
            Some(encode(&entry))
        })?;
        Ok(())
    }

    pub fn put(&self, hash: &TokenHash, entry: &Entry) -> sled::Result<()> {
        self.entries.insert(hash.0, encode(entry))?;
        Ok(())
    }

    pub fn remove(&self, hash: &TokenHash) -> sled::Result<()> {
        self.entries.remove(hash.0)?;
        Ok(())
    }

    /// Rejected tokens answer 403 at once until `until` (Unix ms), without
    /// asking the verifier before `recheck_at` (a rejection an administrator
    /// can lift, such as an exhausted balance, is asked about again then).
    pub fn blacklist(&self, hash: &TokenHash, until: i64, recheck_at: i64) -> sled::Result<()> {
        self.entries.remove(hash.0)?;
        let mut value = until.to_be_bytes().to_vec();
        value.extend_from_slice(&recheck_at.min(until).to_be_bytes());
        self.blacklist.insert(hash.0, value)?;
        Ok(())
    }

    /// Lifts a blacklisting (the verifier accepted the token again).
    pub fn unblacklist(&self, hash: &TokenHash) -> sled::Result<()> {
        self.blacklist.remove(hash.0)?;
        Ok(())
    }

    pub fn blacklisted(&self, hash: &TokenHash, now: i64) -> sled::Result<Blacklisted> {
        let Some(value) = self.blacklist.get(hash.0)? else {
            return Ok(Blacklisted::No);
        };
        let field = |at: usize| {
            value
                .get(at..at + 8)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .map(i64::from_be_bytes)
        };
        let until = field(0).unwrap_or(0);
        // Entries written before rechecks existed are never rechecked.
        let recheck_at = field(8).unwrap_or(until);
        Ok(if until <= now {
            Blacklisted::No
        } else if recheck_at <= now {
            Blacklisted::Recheck
        } else {
            Blacklisted::Yes
        })
    }

    /// Drops stale entries and ended blacklistings (housekeeping).
    pub fn purge(&self, now: i64) -> sled::Result<usize> {
        let mut removed = 0;
        for item in self.entries.iter() {
            let (key, value) = item?;
            if decode::<Entry>(&value).is_none_or(|e| e.fresh_until <= now) {
                self.entries.remove(key)?;
                removed += 1;
            }
        }
        for item in self.blacklist.iter() {
            let (key, value) = item?;
            let until = value
                .get(..8)
                .and_then(|b| <[u8; 8]>::try_from(b).ok())
                .map_or(0, i64::from_be_bytes);
            if until <= now {
                self.blacklist.remove(key)?;
                removed += 1;
            }
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache() -> (tempfile::TempDir, TokenCache) {
        let dir = tempfile::tempdir().unwrap();
        let db = sled::open(dir.path()).unwrap();
        (dir, TokenCache::open(&db).unwrap())
    }

    #[test]
    fn balance_counts_down_to_zero_then_misses() {
        let (_d, cache) = cache();
        let h = TokenHash::of("lp_x");
        assert_eq!(cache.reserve(&h, 0).unwrap(), Reserve::Miss);
        let entry = Entry {
            balance: 2,
            fresh_until: 100,
            rate_limit: None,
            owner: Owner::account("acme"),
        };
        cache.put(&h, &entry).unwrap();
        assert!(matches!(cache.reserve(&h, 1).unwrap(), Reserve::Hit(e) if e.balance == 1));
        assert!(matches!(cache.reserve(&h, 1).unwrap(), Reserve::Hit(e) if e.balance == 0));
        assert_eq!(cache.reserve(&h, 1).unwrap(), Reserve::Miss);
        cache.refund(&h).unwrap();
        assert!(matches!(cache.reserve(&h, 1).unwrap(), Reserve::Hit(_)));
        // Stale after fresh_until.
        cache.refund(&h).unwrap();
        assert_eq!(cache.reserve(&h, 100).unwrap(), Reserve::Miss);
    }

    #[test]
    fn blacklisting_lasts_until_its_end() {
        let (_d, cache) = cache();
        let h = TokenHash::of("lp_y");
        cache.blacklist(&h, 50, 50).unwrap();
        assert_eq!(cache.blacklisted(&h, 49).unwrap(), Blacklisted::Yes);
        assert_eq!(cache.blacklisted(&h, 50).unwrap(), Blacklisted::No);
        assert_eq!(cache.purge(60).unwrap(), 1);
    }

    #[test]
    fn a_liftable_blacklisting_is_due_for_a_recheck_before_it_ends() {
        let (_d, cache) = cache();
        let h = TokenHash::of("lp_z");
        cache.blacklist(&h, 100, 20).unwrap();
        assert_eq!(cache.blacklisted(&h, 19).unwrap(), Blacklisted::Yes);
        assert_eq!(cache.blacklisted(&h, 20).unwrap(), Blacklisted::Recheck);
        assert_eq!(cache.blacklisted(&h, 100).unwrap(), Blacklisted::No);
        cache.unblacklist(&h).unwrap();
        assert_eq!(cache.blacklisted(&h, 30).unwrap(), Blacklisted::No);
    }
}
