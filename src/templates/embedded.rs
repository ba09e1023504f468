//! Stored templates in a sled database of their own
//! (`<data-dir>/templates`): one machine, no set-up.
//!
//! Keys are `owner NUL name` (neither holds a NUL: an owner is
//! `account:`/`token:` text, a name is `A-Za-z0-9._-`), so one owner's
//! templates are one key range, listed in name order.

use std::path::Path;

use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

use super::{Listed, Owner, Stored, TemplateError, TemplateName};

#[derive(Serialize, Deserialize)]
struct Record {
    updated_at: i64,
    template: String,
}

pub struct EmbeddedTemplates {
    db: sled::Db,
    /// Puts one at a time, so that counting an owner's templates and adding
    /// one are one step.
    writing: Mutex<()>,
}

fn unavailable(e: impl std::fmt::Display) -> TemplateError {
    TemplateError::Unavailable(e.to_string())
}

fn prefix(owner: &Owner) -> Vec<u8> {
    let mut key = owner.as_str().as_bytes().to_vec();
    key.push(0);
    key
}

fn key(owner: &Owner, name: &TemplateName) -> Vec<u8> {
    let mut key = prefix(owner);
    key.extend_from_slice(name.as_str().as_bytes());
    key
}

impl EmbeddedTemplates {
    /// Opens (or creates, mode 0700) the store in `dir`.
    pub fn open(dir: &Path) -> Result<EmbeddedTemplates, String> {
        crate::data_dir::create_private_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let db = sled::Config::new()
            .path(dir)
            .open()
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(EmbeddedTemplates {
            db,
            writing: Mutex::new(()),
        })
    }

    pub async fn put(
        &self,
        owner: &Owner,
        name: &TemplateName,
        template: &str,
        max: usize,
        now: i64,
    ) -> Result<Stored, TemplateError> {
        let _turn = self.writing.lock().await;
        let key = key(owner, name);
        let exists = self.db.contains_key(&key).map_err(unavailable)?;
        if !exists && self.db.scan_prefix(prefix(owner)).count() >= max {
            return Err(TemplateError::Full { max });
        }
        let record = serde_json::to_vec(&Record {
            updated_at: now,
            template: template.to_string(),
        })
        .map_err(unavailable)?;
        self.db.insert(key, record).map_err(unavailable)?;
        self.db.flush_async().await.map_err(unavailable)?;
        Ok(if exists {
            Stored::Replaced
        } else {
            Stored::Created
        })
    }

    pub async fn get(
        &self,
        owner: &Owner,
        name: &TemplateName,
    ) -> Result<Option<String>, TemplateError> {
        let Some(bytes) = self.db.get(key(owner, name)).map_err(unavailable)? else {
            return Ok(None);
        };
        let record: Record = serde_json::from_slice(&bytes).map_err(unavailable)?;
        Ok(Some(record.template))
    }

    pub async fn delete(&self, owner: &Owner, name: &TemplateName) -> Result<bool, TemplateError> {
        let _turn = self.writing.lock().await;
        let removed = self.db.remove(key(owner, name)).map_err(unavailable)?;
        self.db.flush_async().await.map_err(unavailable)?;
        Ok(removed.is_some())
    }

    pub async fn list(&self, owner: &Owner) -> Result<Vec<Listed>, TemplateError> {
        let prefix = prefix(owner);
        let mut listed = Vec::new();
        for entry in self.db.scan_prefix(&prefix) {
            let (key, bytes) = entry.map_err(unavailable)?;
            let record: Record = serde_json::from_slice(&bytes).map_err(unavailable)?;
            listed.push(Listed {
                name: String::from_utf8_lossy(&key[prefix.len()..]).into_owned(),
                updated_at: record.updated_at,
                bytes: record.template.len() as u64,
            });
        }
        Ok(listed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::credential::TokenHash;

    fn name(n: &str) -> TemplateName {
        TemplateName::parse(n).unwrap()
    }

    #[tokio::test]
    async fn each_owner_sees_only_its_own_templates_and_is_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let store = EmbeddedTemplates::open(dir.path()).unwrap();
        let (a, b) = (Owner::account("a"), Owner::account("ab"));
        assert_eq!(
            store.put(&a, &name("x"), "{}", 2, 1).await.unwrap(),
            Stored::Created
        );
        assert_eq!(
            store.put(&a, &name("x"), "{\"v\":2}", 2, 2).await.unwrap(),
            Stored::Replaced
        );
        // The same name under another owner is another template; an owner
        // whose name extends the first's shares no keys with it.
        assert_eq!(
            store.put(&b, &name("x"), "{\"b\":1}", 2, 3).await.unwrap(),
            Stored::Created
        );
        assert_eq!(
            store.get(&a, &name("x")).await.unwrap().as_deref(),
            Some("{\"v\":2}")
        );
        assert_eq!(store.list(&b).await.unwrap().len(), 1);
        store.put(&a, &name("y"), "{}", 2, 4).await.unwrap();
        assert!(matches!(
            store.put(&a, &name("z"), "{}", 2, 5).await,
            Err(TemplateError::Full { max: 2 })
        ));
        let names: Vec<String> = store
            .list(&a)
            .await
            .unwrap()
            .into_iter()
            .map(|l| l.name)
            .collect();
        assert_eq!(names, ["x", "y"]);
        assert!(!store
            .delete(&Owner::token(&TokenHash::of("t")), &name("x"))
            .await
            .unwrap());
        assert!(store.delete(&a, &name("x")).await.unwrap());
        assert_eq!(store.get(&a, &name("x")).await.unwrap(), None);
        assert!(store.get(&b, &name("x")).await.unwrap().is_some());
    }
}
