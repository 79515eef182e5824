//! A memory built from a module's memory image is kept warm when dropped and
//! restored for the next instance of the same module (docs/warm-memory.md):
//! that instance must see exactly what a fresh one sees, at every byte and
//! every bound, whatever the last one wrote, grew or read.

mod common;

use seedfall_engine::*;

/// Two wasm pages, growable to eight, with data in both; `poke`, `peek` and
/// `grow` let a test change and observe everything a guest can.
const MODULE: &str = r#"(module
  (memory 2 8)
  (data (i32.const 3) "hello")
  (data (i32.const 70000) "world")
  (func (export "poke") (param i32 i32) (i32.store8 (local.get 0) (local.get 1)))
  (func (export "peek") (param i32) (result i32) (i32.load8_u (local.get 0)))
  (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0))))"#;

const PAGE: i32 = 65536;

fn call(instance: &mut Instance<()>, name: &str, args: &[Val]) -> Run {
    instance.call(name, args).unwrap()
}

fn peek(instance: &mut Instance<()>, at: i32) -> Run {
    call(instance, "peek", &[Val::I32(at)])
}

/// The bytes a fresh instance of `MODULE` starts with.
fn initial_bytes() -> Vec<u8> {
    let mut bytes = vec![0u8; 2 * PAGE as usize];
    bytes[3..8].copy_from_slice(b"hello");
    bytes[70000..70005].copy_from_slice(b"world");
    bytes
}

fn base(instance: &Instance<()>) -> *mut u8 {
    instance.memory().expect("a memory").base()
}

#[test]
fn the_next_instance_of_a_module_sees_a_fresh_memory_in_the_last_ones_reservation() {
    let code = common::load_wat(MODULE, TrapMode::Signals);
    let linker = Linker::<()>::new();
    let mut first = Instance::new(code.clone(), &linker, ()).unwrap();
    assert_eq!(first.memory().unwrap().bytes(), &initial_bytes()[..]);
    // Writes over the image, over zeros inside the minimum, and past it
    // after growing; and a read of a page no one wrote (the zero page).
    call(&mut first, "poke", &[Val::I32(4), Val::I32(0x7a)]);
    call(&mut first, "poke", &[Val::I32(PAGE + 17), Val::I32(1)]);
    assert_eq!(call(&mut first, "grow", &[Val::I32(3)]), Run::Returned(vec![Val::I32(2)]));
    call(&mut first, "poke", &[Val::I32(4 * PAGE + 5), Val::I32(9)]);
    assert_eq!(peek(&mut first, 3 * PAGE), Run::Returned(vec![Val::I32(0)]));
    let reused = base(&first);
    drop(first);

    let mut second = Instance::new(code.clone(), &linker, ()).unwrap();
    // On Linux the warm reservation is taken; elsewhere none is kept, and
    // the rest of the test still holds for the fresh memory it gets.
    if cfg!(target_os = "linux") {
        assert_eq!(base(&second), reused, "the dropped memory's reservation, warm");
    }
    assert_eq!(second.memory().unwrap().pages(), 2);
    assert_eq!(second.memory().unwrap().bytes(), &initial_bytes()[..]);
    assert!(matches!(peek(&mut second, 4 * PAGE + 5), Run::Trapped(_)), "past the minimum is out of bounds again");
    assert_eq!(call(&mut second, "grow", &[Val::I32(6)]), Run::Returned(vec![Val::I32(2)]));
    let grown = second.memory().unwrap().bytes();
    assert_eq!(grown.len(), 8 * PAGE as usize);
    assert!(grown[2 * PAGE as usize..].iter().all(|b| *b == 0), "grown pages are zero, the written one too");
    assert_eq!(call(&mut second, "grow", &[Val::I32(1)]), Run::Returned(vec![Val::I32(-1)]), "the maximum holds");
}

#[test]
fn a_warm_memory_goes_only_to_its_own_module() {
    let code = common::load_wat(MODULE, TrapMode::Signals);
    let other = common::load_wat(&MODULE.replace("hello", "HELLO"), TrapMode::Signals);
    let linker = Linker::<()>::new();
    let first = Instance::new(code.clone(), &linker, ()).unwrap();
    let kept = base(&first);
    drop(first);
    let stranger = Instance::new(other, &linker, ()).unwrap();
    assert_ne!(base(&stranger), kept, "another module's memory takes no warm reservation of this one");
    assert_eq!(&stranger.memory().unwrap().bytes()[3..8], b"HELLO");
    let again = Instance::new(code, &linker, ()).unwrap();
    if cfg!(target_os = "linux") {
        assert_eq!(base(&again), kept);
    }
    assert_eq!(again.memory().unwrap().bytes(), &initial_bytes()[..]);
}

#[test]
fn a_memory_cap_below_the_minimum_is_an_error_for_a_warm_reservation_too() {
    let code = common::load_wat(MODULE, TrapMode::Signals);
    drop(Instance::new(code.clone(), &Linker::<()>::new(), ()).unwrap());
    let mut capped = Linker::<()>::new();
    capped.set_memory_cap_bytes(PAGE as u64);
    let error = Instance::new(code.clone(), &capped, ()).err().expect("the cap is below the minimum");
    assert!(error.to_string().contains("exceeds the memory cap"), "{error}");
    let fine = Instance::new(code, &Linker::<()>::new(), ()).unwrap();
    assert_eq!(fine.memory().unwrap().bytes(), &initial_bytes()[..]);
}

#[test]
#[cfg(target_os = "linux")]
fn an_image_page_only_read_counts_as_untouched_and_a_written_one_does_not() {
    let code = common::load_wat(MODULE, TrapMode::Signals);
    let mut instance = Instance::new(code, &Linker::<()>::new(), ()).unwrap();
    assert_eq!(peek(&mut instance, 3), Run::Returned(vec![Val::I32(b'h' as i32)]));
    call(&mut instance, "poke", &[Val::I32(70001), Val::I32(0)]);
    let untouched = instance.memory().unwrap().untouched_pages().expect("Linux has a pagemap");
    assert!(untouched[0], "read through the image's own page: still the image");
    assert!(!untouched[70001 / 4096], "written: a private copy");
}
