//! What every subsystem works in: the jail, the budgets in force, the documents store, the
//! per-file locks and the temp-file journal of the commit protocol. Subsystems take a
//! `&Workspace` (or only the parts they need), never the daemon's `State`, so they know nothing
//! of the method table, the language servers they do not own, or the socket.

pub mod keep;
pub mod watch;

use crate::config::Limits;
use crate::documents::commit::Journal;
use crate::documents::locks::Locks;
use crate::documents::{Document, Documents};
use crate::error::Result;
use crate::jail::{Jail, Resolved};
use crate::memory::Policy;
use std::sync::{Arc, OnceLock, RwLock};

pub struct Workspace {
    pub jail: Jail,
    /// The budgets in force; a config reload swaps them (see `set_limits`).
    limits: RwLock<Arc<Limits>>,
    pub documents: Documents,
    pub locks: Locks,
    pub journal: Journal,
    /// Where edits hand the bytes they are about to replace (`keep`); set once by the daemon.
    keeper: OnceLock<Arc<dyn keep::Keeper>>,
}

impl Workspace {
    pub fn new(jail: Jail, limits: Limits, documents: Documents, journal: Journal) -> Workspace {
        Workspace {
            jail,
            limits: RwLock::new(Arc::new(limits)),
            documents,
            locks: Locks::default(),
            journal,
            keeper: OnceLock::new(),
        }
    }

    /// Installs the keeper of replaced bytes (once; later calls are ignored).
    pub fn set_keeper(&self, keeper: Arc<dyn keep::Keeper>) {
        let _ = self.keeper.set(keeper);
    }

    /// The keeper of replaced bytes, if the daemon installed one.
    pub fn keeper(&self) -> Option<&Arc<dyn keep::Keeper>> {
        self.keeper.get()
    }

    /// The budgets in force now; a reload swaps them, a request keeps the snapshot it took.
    pub fn limits(&self) -> Arc<Limits> {
        self.limits
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// A file's document (held, else read through the jail) under the budgets in force.
    pub fn load(&self, resolved: &Resolved) -> Result<Arc<Document>> {
        let limits = self.limits();
        self.documents.load(
            &self.jail,
            resolved,
            limits.max_write_bytes,
            limits.documents_max_bytes,
        )
    }

    /// The memory policy in force now (derived from the live `max_memory_bytes`).
    pub fn policy(&self) -> Policy {
        Policy::new(self.limits().max_memory_bytes)
    }

    /// Swaps in new budgets when they differ from the ones in force, first calling `changed`
    /// with the old and the new (under the lock, so two reloads apply in order). Returns whether
    /// they differed.
    pub fn set_limits(&self, limits: Limits, changed: impl FnOnce(&Limits, &Limits)) -> bool {
        let mut current = self.limits.write().unwrap_or_else(|e| e.into_inner());
        if **current == limits {
            return false;
        }
        changed(&current, &limits);
        *current = Arc::new(limits);
        true
    }
}
