//! Sizes of the parts of a cached Artifact (where decode time goes).
fn main() {
    let path = std::env::args().nth(1).expect("usage: artifact_stats ENTRY.sfc");
    let bytes = std::fs::read(&path).expect("reading the entry");
    let a = seedfall_engine::Artifact::decode(&bytes[seedfall_cache::HEADER_LEN..]).expect("decodes");
    let names: usize = a.info.func_names.iter().flatten().map(|n| n.len()).sum();
    let data: usize = a.info.data.iter().map(|d| d.bytes.len()).sum();
    println!(
        "code {} B, functions {}, trampolines {}, relocations {}, traps {}",
        a.code.len(),
        a.functions.len(),
        a.trampolines.len(),
        a.relocations.len() / seedfall_engine::artifact::RELOC_RECORD,
        a.trap_count()
    );
    println!(
        "names {} ({} B), data segments {} ({} B), types {}, imports {}, exports {}, elements {}",
        a.info.func_names.len(),
        names,
        a.info.data.len(),
        data,
        a.info.types.len(),
        a.info.imports.len(),
        a.info.exports.len(),
        a.info.elements.iter().map(|e| e.funcs.len()).sum::<usize>()
    );
}
