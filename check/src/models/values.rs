//! Interning of the values a history mentions, so model states are small integers: a state compares and
//! hashes in one instruction in the search's hot loop. Ids follow first appearance, so they are the same on
//! every run. (`kv` interns the strings its appends build as well: `strings.rs`.)

use rustc_hash::FxHashMap;

#[derive(Default)]
pub(crate) struct Values {
    ids: FxHashMap<String, u32>,
}

impl Values {
    pub(crate) fn id(&mut self, text: &str) -> u32 {
        if let Some(&id) = self.ids.get(text) {
            return id;
        }
        let id = u32::try_from(self.ids.len()).expect("fewer than 2^32 distinct values");
        self.ids.insert(text.to_owned(), id);
        id
    }
}
