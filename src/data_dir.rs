//! The node's data folder, held by one process at a time.
//!
//! The verifier's store, the render token cache and the usage outbox live
//! under it; two processes on one folder would each open them, and the
//! second used to die deep in the store with `WouldBlock`. The folder is
//! locked (an advisory lock on `<dir>/.lock`, released by the kernel when the
//! process ends, however it ends) before anything in it is opened, and a
//! start that fails before serving removes what it created.

use std::fs::File;
use std::path::{Path, PathBuf};

/// Why the data folder cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DataDirError {
    #[error("{0}: another labelpress holds this data folder (only one process may use it)")]
    Held(PathBuf),
    #[error("{0}: {1}")]
    Io(PathBuf, std::io::Error),
}

/// The locked data folder; the lock lasts as long as this value.
#[derive(Debug)]
pub struct DataDir {
    path: PathBuf,
    _lock: File,
    /// Created by this start (removed again if the start fails).
    created_dir: bool,
    /// The lock file was created by this start.
    created_lock: bool,
}

impl DataDir {
    /// Creates the folder owner-only when it is new, then locks it.
    pub fn open(path: &Path) -> Result<DataDir, DataDirError> {
        let io = |e| DataDirError::Io(path.to_path_buf(), e);
        let created_dir = !path.exists();
        if created_dir {
            create_private_dir(path).map_err(io)?;
        }
        let lock_path = path.join(".lock");
        let created_lock = !lock_path.exists();
        let opened = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io)
            .and_then(|lock| match lock.try_lock() {
                Ok(()) => Ok(lock),
                Err(std::fs::TryLockError::WouldBlock) => {
                    Err(DataDirError::Held(path.to_path_buf()))
                }
                Err(std::fs::TryLockError::Error(e)) => Err(io(e)),
            });
        match opened {
            Ok(lock) => Ok(DataDir {
                path: path.to_path_buf(),
                _lock: lock,
                created_dir,
                created_lock,
            }),
            Err(e) => {
                remove_created(path, created_dir, created_lock);
                Err(e)
            }
        }
    }

    /// Removes what this start created, for a start that fails before
    /// serving: the folder if it was new (with the stores and admin token
    /// opened in it since), else the lock file if it was new.
    pub fn abandon(self) {
        remove_created(&self.path, self.created_dir, self.created_lock);
    }
}

fn remove_created(path: &Path, created_dir: bool, created_lock: bool) {
    if created_dir {
        let _ = std::fs::remove_dir_all(path);
    } else if created_lock {
        let _ = std::fs::remove_file(path.join(".lock"));
    }
}

/// Creates `dir` (and parents) and restricts it to its owner: the token
/// cache and outbox under the data dir hold tokens.
pub fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_and_the_first_release_frees_the_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("data");
        let first = DataDir::open(&path).unwrap();
        assert!(matches!(DataDir::open(&path), Err(DataDirError::Held(_))));
        // The refused start removed nothing of the first's.
        assert!(path.join(".lock").exists());
        drop(first);
        let again = DataDir::open(&path).unwrap();
        drop(again);
    }

    #[test]
    fn an_abandoned_start_removes_the_folder_it_created_and_only_that() {
        let tmp = tempfile::tempdir().unwrap();
        let new = tmp.path().join("new");
        let dir = DataDir::open(&new).unwrap();
        std::fs::write(new.join("admin-token"), "x").unwrap();
        dir.abandon();
        assert!(!new.exists());

        let existing = tmp.path().join("existing");
        std::fs::create_dir(&existing).unwrap();
        std::fs::write(existing.join("keep"), "x").unwrap();
        DataDir::open(&existing).unwrap().abandon();
        assert!(existing.join("keep").exists());
        assert!(!existing.join(".lock").exists());
    }
}
