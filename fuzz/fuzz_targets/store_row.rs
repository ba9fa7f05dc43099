//! Any column values decode to a recording or to "unreadable", never to a recording whose session
//! id fails its agent's shape (or the independent safe-value check), whose agent is not the stored
//! code, or whose directory is empty; and a recording that decodes, bound again as the writer binds
//! it, decodes to itself.
#![no_main]
use agent_resume_core::Catalog;
use agent_resume_fuzz::{as_column, encode_row, is_safe_value, row_values};
use agent_resume_store::{decode_values, Column, RowState};
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let values = row_values(data);
    let RowState::Recording(r) = decode_values(values) else { return };
    let id = r.session_id.as_str();
    assert!(Catalog::embedded().agent(r.agent).id_shape.matches(id) && is_safe_value(id), "{r:?}");
    assert_eq!(values[0], Column::Integer(r.agent.code().into()), "{r:?}");
    assert!(!r.cwd.as_os_str().is_empty(), "{r:?}");
    let again = encode_row(&r);
    assert_eq!(decode_values(again.each_ref().map(as_column)), RowState::Recording(r));
});
