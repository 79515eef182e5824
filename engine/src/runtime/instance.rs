//! Instances: a loaded module's code bound to its own memory, table, globals
//! and host state `T`, and the calls into it.
//!
//! Instantiation resolves imports through a `Linker`, builds the vmctx, fills
//! globals, table and memory from the module's segments (bulk-memory order:
//! each segment is bounds-checked as it is applied) and runs the start function.
//! If that fails after the instance's functions went into an imported table,
//! the table keeps the instance alive: the spec keeps those writes callable.
//!
//! Ownership: the instance's state (`InstanceInner`) sits in an `Rc`, shared
//! with what it exports (functions and globals keep it alive, so they cannot
//! dangle) and reached by compiled code and the libcalls through the raw
//! pointers in the vmctx. It is written through an `UnsafeCell`; the rule that
//! keeps that sound is that no Rust reference into it is held while guest code
//! runs, except the ones `dispatch` makes for the duration of a host call.
//! Known wart: a host function reached through another instance's import (an
//! exported function) sees its own instance's host state while the embedder
//! may hold `data_mut()` of that instance; only the spec tests link instances.
//! Every call runs on a fresh fiber (`Fiber`); `Run::Suspended` hands control
//! back to the owner, who later `resume`s or `abandon`s it. After a trap or an
//! exit the instance stays usable for new calls (the wasm spec tests rely on
//! that); whether a node survives is the host's policy, not the engine's.

use crate::error::{Error, Result};
use crate::module::{ConstExpr, ConstOp, ExportKind, FuncType, GlobalType, ImportKind, ValType};
use crate::runtime::code::{self, Code};
use crate::runtime::fiber::{Fiber, FiberStep, FiberYield};
use crate::runtime::host::{Caller, Extern, Global, HostError, HostFunc, Linker, Val};
use crate::runtime::libcalls::{self, InstanceCore};
use crate::runtime::memory::LinearMemory;
use crate::runtime::table::Table;
use crate::runtime::trap::{Trap, TrapKind};
use crate::runtime::vmctx::{self, TableEntry, VmCtx, VmCtxHeader};
use std::any::Any;
use std::cell::{Cell, UnsafeCell};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::rc::Rc;
use std::sync::Arc;

thread_local! {
    /// The stack limit of the fiber running guest code on this thread; every
    /// vmctx points here (`VmCtxHeader::stack_limit`). Instances never change
    /// threads (their fibers are not `Send`), so the pointer stays valid.
    static GUEST_STACK_LIMIT: Cell<usize> = const { Cell::new(0) };
}

/// Resume `fiber` with the thread's guest stack limit set to its stack's, and
/// put back the previous limit (an outer fiber's) when it stops.
#[inline]
fn resume_fiber(fiber: &mut Fiber, value: u64) -> FiberStep {
    let previous = GUEST_STACK_LIMIT.with(|limit| limit.replace(fiber.stack_limit()));
    let step = fiber.resume(value);
    GUEST_STACK_LIMIT.with(|limit| limit.set(previous));
    step
}

#[repr(C)]
struct InstanceInner<T> {
    /// First, so a pointer to it is a pointer to the whole (`InstanceCore`).
    core: InstanceCore,
    code: Arc<Code>,
    table: Option<Rc<Table>>,
    /// Header + one slot per global (+ the "ran" bitmap, see `runtime::vmctx`);
    /// boxed so compiled code's pointer is stable, in cells because compiled
    /// code writes it through that pointer.
    vmctx: Box<[UnsafeCell<u64>]>,
    global_types: Vec<GlobalType>,
    /// Globals below this index are imported (their slot holds a pointer).
    num_imported_globals: u32,
    /// The imported globals, kept alive for the slots that point at them.
    _imported_globals: Vec<Global>,
    /// Host function per function import, by function index.
    host_funcs: Vec<(FuncType, HostFunc<T>)>,
    data: T,
}

impl<T> InstanceInner<T> {
    fn vmctx_ptr(&self) -> *mut VmCtx {
        // `UnsafeCell<u64>` has the layout of `u64`; the cells make writes
        // through this pointer legitimate.
        self.vmctx.as_ptr() as *mut VmCtx
    }

    /// The storage of global `index`, or None when out of range.
    fn global_slot(&self, index: u32) -> Option<*mut u64> {
        let cell = self.vmctx.get(vmctx::HEADER_SIZE / 8 + index as usize)?;
        if index < self.num_imported_globals {
            // SAFETY: a plain read of a slot no reference points into; an
            // imported global's slot holds the address of storage kept alive
            // by `_imported_globals`.
            Some(unsafe { *cell.get() } as *mut u64)
        } else {
            Some(cell.get())
        }
    }
}

impl<T> Drop for InstanceInner<T> {
    fn drop(&mut self) {
        // A table others still use must not keep calling into this vmctx.
        if let Some(table) = &self.table
            && Rc::strong_count(table) > 1
        {
            table.clear_vmctx(self.vmctx_ptr());
        }
    }
}

/// An instance's shared state; see the module doc for the aliasing rule.
type Shared<T> = UnsafeCell<InstanceInner<T>>;

/// The outcome of running guest code until it stops.
#[derive(Debug, Clone, PartialEq)]
pub enum Run {
    /// The call finished with these results.
    Returned(Vec<Val>),
    /// A host function suspended the guest with this value.
    Suspended(u64),
    /// A host function ended the guest with this exit code.
    Exited(i32),
    Trapped(Trap),
}

struct PendingCall {
    fiber: Fiber,
    results: Vec<ValType>,
    values: Box<[u64]>,
}

/// A module instance. Not `Send` (it holds `Rc`s): the vmctx points at this
/// thread's stack-limit thread-local, and a suspended fiber must be resumed
/// on the thread it ran on.
pub struct Instance<T> {
    shared: Rc<Shared<T>>,
    call: Option<PendingCall>,
}

/// Run host function `index` of the instance whose core is `core`.
///
/// # Safety
/// `core` must be the `core` field of a live `InstanceInner<T>` (the vmctx's
/// `instance` pointer, with this `T`), called from a host-call stub while that
/// instance's guest code is stopped in it; `values` must point at the stub's
/// buffer, `max(params, results, 1)` slots; `return_address` is the stub's.
unsafe fn dispatch<T>(
    core: *mut InstanceCore,
    index: u32,
    values: *mut u64,
    return_address: usize,
) -> std::result::Result<(), HostError> {
    // `core` is the first field of a repr(C) InstanceInner<T>, and was derived
    // from a pointer to the whole of it.
    let inner = core as *mut InstanceInner<T>;
    // SAFETY: the instance is live (contract); these are the only references
    // into it while the host call runs (module doc), and each is to a field
    // nothing else borrows: host functions and types are read-only after
    // instantiation, `data` is reached only here and by `Instance` methods,
    // which cannot run while its guest is stopped in a call.
    let (host_funcs, global_types, data, memory, num_imported_globals, code) = unsafe {
        (
            &(*inner).host_funcs,
            &(*inner).global_types,
            &mut (*inner).data,
            (*inner).core.memory.as_deref(),
            (*inner).num_imported_globals,
            &*(*inner).core.code,
        )
    };
    let (ty, func): &(FuncType, HostFunc<T>) = &host_funcs[index as usize];
    let len = ty.params.len().max(ty.results.len()).max(1);
    // SAFETY: the import stub passes a buffer of exactly this many slots.
    let values = unsafe { std::slice::from_raw_parts_mut(values, len) };
    // SAFETY: the vmctx storage is header + one slot per global, so the first
    // global slot is in bounds (one past the end when there are none).
    let globals = unsafe { ((*inner).vmctx.as_ptr() as *mut u64).add(vmctx::HEADER_SIZE / 8) };
    let mut caller = Caller { data, memory, globals, global_types, num_imported_globals, code, return_address };
    match catch_unwind(AssertUnwindSafe(|| func(&mut caller, values))) {
        Ok(result) => result,
        Err(panic) => Err(HostError::Fail(format!("host function panicked: {}", crate::error::panic_message(&*panic)))),
    }
}

/// Limits matching: an import declaring a maximum needs one no larger.
fn max_fits(wanted: Option<u64>, have: Option<u64>) -> bool {
    match (wanted, have) {
        (None, _) => true,
        (Some(want), Some(have)) => have <= want,
        (Some(_), None) => false,
    }
}

fn link_error(module: &str, name: &str, problem: &str) -> Error {
    Error::Link(format!("import {module}.{name}: {problem}"))
}

impl<T: 'static> Instance<T> {
    /// Instantiate `code`, binding its imports from `linker`, with host state `data`.
    pub fn new(code: Arc<Code>, linker: &Linker<T>, data: T) -> Result<Instance<T>> {
        let info = code.info();
        let mut host_funcs = Vec::new();
        let mut memory = None;
        let mut table = None;
        let mut imported_globals = Vec::new();
        for import in &info.imports {
            let (module, name) = (&import.module, &import.name);
            let item = linker.get(module, name).ok_or_else(|| link_error(module, name, "unknown import"))?;
            match (&import.kind, item) {
                (ImportKind::Func { type_index }, Extern::Func { ty, func }) => {
                    if *ty != info.types[*type_index as usize] {
                        return Err(link_error(module, name, "incompatible import type"));
                    }
                    host_funcs.push((ty.clone(), func.clone()));
                }
                (ImportKind::Memory(decl), Extern::Memory(m)) => {
                    // An import with a maximum needs a memory declared with
                    // one no larger (limits matching, as for tables).
                    if m.pages() < decl.min_pages || !max_fits(decl.max_pages, m.declared_max_pages()) {
                        return Err(link_error(module, name, "incompatible import type"));
                    }
                    memory = Some(m.clone());
                }
                (ImportKind::Table(decl), Extern::Table(t)) => {
                    if (t.len() as u64) < decl.min || !max_fits(decl.max, t.max()) {
                        return Err(link_error(module, name, "incompatible import type"));
                    }
                    table = Some(t.clone());
                }
                (ImportKind::Global(ty), Extern::Global(g)) => {
                    if g.ty() != *ty {
                        return Err(link_error(module, name, "incompatible import type"));
                    }
                    imported_globals.push(g.clone());
                }
                _ => return Err(link_error(module, name, "incompatible import type")),
            }
        }
        if memory.is_none()
            && let Some(decl) = info.memory
        {
            let cap = linker.memory_cap_pages();
            let made = match &code.prepared().memory {
                Some(image) => image.new_memory(decl.min_pages, decl.max_pages, cap),
                None => None,
            };
            let made = made.unwrap_or_else(|| LinearMemory::with_cap(decl.min_pages, decl.max_pages, cap))?;
            memory = Some(Rc::new(made));
        }
        if table.is_none()
            && let Some(decl) = info.table
        {
            table = Some(Rc::new(Table::new(decl.min, decl.max)?));
        }

        // Header, globals, then (code compiled with them) the zeroed "ran"
        // bitmap and edge map.
        let bitmap_slots = match code.artifact().function_bitmap {
            true => vmctx::function_bitmap_slots(code.num_defined_functions() as usize),
            false => 0,
        } + if code.artifact().edge_bitmap { vmctx::EDGE_MAP_BYTES / 8 } else { 0 };
        let mut vmctx_storage = vec![0u64; vmctx::HEADER_SIZE / 8 + info.globals.len() + bitmap_slots];
        for (i, global) in imported_globals.iter().enumerate() {
            vmctx_storage[vmctx::HEADER_SIZE / 8 + i] = global.as_ptr() as u64;
        }
        let (mem_base, mem_def) = match &memory {
            Some(m) => (m.base(), m.def_ptr()),
            None => (std::ptr::null_mut(), std::ptr::null()),
        };
        let (table_base, table_len) = match &table {
            Some(t) => (t.base(), t.len() as u64),
            None => (std::ptr::null(), 0),
        };
        let shared: Rc<Shared<T>> = Rc::new(UnsafeCell::new(InstanceInner {
            core: InstanceCore { dispatch: dispatch::<T>, code: Arc::as_ptr(&code), memory, pending: None },
            code: code.clone(),
            table,
            vmctx: vmctx_storage.into_iter().map(UnsafeCell::new).collect(),
            global_types: info.globals.iter().map(|g| g.ty).collect(),
            num_imported_globals: info.num_imported_globals(),
            _imported_globals: imported_globals,
            host_funcs,
            data,
        }));
        // Derived from the pointer to the whole InstanceInner, so `dispatch`
        // may cast it back (the core is its first field).
        let core_ptr = shared.get() as *mut u8;
        let header = VmCtxHeader {
            mem_base,
            memory: mem_def,
            stack_limit: GUEST_STACK_LIMIT.with(|limit| limit.as_ptr() as *const usize),
            table_base,
            table_len,
            trap: libcalls::trap,
            memory_grow: libcalls::memory_grow,
            memory_copy: libcalls::memory_copy,
            memory_fill: libcalls::memory_fill,
            host_call: libcalls::host_call,
            instance: core_ptr,
            intrinsic: libcalls::intrinsic,
            lazy_compile: libcalls::lazy_compile,
            lazy_func: 0,
        };
        let mut instance = Instance { shared, call: None };
        // SAFETY: the storage starts with room for a VmCtxHeader (HEADER_SIZE
        // bytes, 8-aligned), no guest code has run, and nothing else refers to
        // the header yet.
        unsafe { (*instance.inner().vmctx_ptr()).header = header };

        let mut exposed = false;
        if let Err(error) = instance.initialize(&mut exposed) {
            if exposed {
                // An imported table now holds functions of this instance (the
                // spec keeps a failed instantiation's writes): it keeps them alive.
                if let Some(table) = &instance.inner().table {
                    table.keep_alive(instance.shared.clone());
                }
            }
            return Err(error);
        }
        Ok(instance)
    }

    /// The instance's state, for reading. Sound because references from here
    /// are bounded by `&self`, and guest code (the only other accessor, via
    /// raw pointers and `dispatch`) runs only inside `&mut self` methods,
    /// which hold no such reference across it.
    fn inner(&self) -> &InstanceInner<T> {
        // SAFETY: see above.
        unsafe { &*self.shared.get() }
    }

    /// The instance's state, for writing; as `inner`, bounded by `&mut self`.
    fn inner_mut(&mut self) -> &mut InstanceInner<T> {
        // SAFETY: see `inner`.
        unsafe { &mut *self.shared.get() }
    }

    /// What keeps this instance alive for the handles it exports.
    fn keep_alive(&self) -> Rc<dyn Any> {
        self.shared.clone()
    }

    /// Globals, element segments, data segments, start function, in the spec's
    /// order. Each segment is bounds-checked as it is applied, so earlier writes
    /// to imported tables and memories stay when a later segment fails.
    /// `exposed` is set once a function of this instance is in an imported table.
    fn initialize(&mut self, exposed: &mut bool) -> Result<()> {
        self.init_globals()?;
        self.init_table(exposed)?;
        self.init_memory()?;
        let Some(start) = self.inner().code.info().start else { return Ok(()) };
        match self.call_index(start, &[])? {
            Run::Returned(_) => Ok(()),
            Run::Trapped(trap) => Err(Error::Trap(trap)),
            Run::Exited(code) => Err(Error::Link(format!("start function exited with code {code}"))),
            Run::Suspended(_) => {
                self.abandon();
                Err(Error::Link("start function suspended".into()))
            }
        }
    }

    fn eval(&mut self, expr: &ConstExpr) -> Result<u64> {
        let mut stack: Vec<u64> = Vec::new();
        for op in expr.ops() {
            let value = match *op {
                ConstOp::I32(v) => v as u32 as u64,
                ConstOp::I64(v) => v as u64,
                ConstOp::F32(v) => v as u64,
                ConstOp::F64(v) => v,
                ConstOp::GlobalGet(i) => self.global_get(i).ok_or_else(|| Error::Link(format!("no global {i}")))?,
                ConstOp::I32Add | ConstOp::I32Sub | ConstOp::I32Mul => {
                    let (b, a) = (stack.pop().unwrap_or(0) as u32, stack.pop().unwrap_or(0) as u32);
                    (match op {
                        ConstOp::I32Add => a.wrapping_add(b),
                        ConstOp::I32Sub => a.wrapping_sub(b),
                        _ => a.wrapping_mul(b),
                    }) as u64
                }
                ConstOp::I64Add | ConstOp::I64Sub | ConstOp::I64Mul => {
                    let (b, a) = (stack.pop().unwrap_or(0), stack.pop().unwrap_or(0));
                    match op {
                        ConstOp::I64Add => a.wrapping_add(b),
                        ConstOp::I64Sub => a.wrapping_sub(b),
                        _ => a.wrapping_mul(b),
                    }
                }
            };
            stack.push(value);
        }
        stack.pop().ok_or_else(|| Error::Link("empty constant expression".into()))
    }

    fn init_globals(&mut self) -> Result<()> {
        let code = self.inner().code.clone();
        for (i, global) in code.info().globals.iter().enumerate() {
            if let Some(init) = &global.init {
                let value = self.eval(init)?;
                self.global_set(i as u32, value)?;
            }
        }
        Ok(())
    }

    fn init_table(&mut self, exposed: &mut bool) -> Result<()> {
        let code = self.inner().code.clone();
        let vmctx = self.inner().vmctx_ptr();
        let prepared = code.prepared();
        for (segment, template) in code.info().elements.iter().zip(&prepared.elements) {
            let Some(offset) = &segment.offset else { continue };
            let start = self.eval(offset)? as u32 as usize;
            let table =
                self.inner().table.as_ref().ok_or_else(|| Error::Link("element segment without a table".into()))?;
            if start + segment.funcs.len() > table.len() {
                return Err(Error::Trap(Trap {
                    kind: TrapKind::TableAccessOutOfBounds,
                    func_index: None,
                    func_name: None,
                    wasm_offset: None,
                    detail: Some("element segment does not fit in the table".into()),
                }));
            }
            for (i, func) in template.iter().enumerate() {
                let entry = match *func {
                    Some((code, signature)) => TableEntry { code, vmctx, signature },
                    None => TableEntry::NULL,
                };
                table.set(start + i, entry).expect("bounds checked above");
                *exposed |= func.is_some() && code.info().table_imported;
            }
        }
        Ok(())
    }

    fn init_memory(&mut self) -> Result<()> {
        let code = self.inner().code.clone();
        // An image exists only for a memory this instance defines (not an
        // imported one, which may hold another module's image).
        if let (Some(_), Some(memory)) = (&code.prepared().memory, &self.inner().core.memory)
            && memory.holds_image()
        {
            return Ok(());
        }
        for segment in &code.info().data {
            let Some(offset) = &segment.offset else { continue };
            let start = self.eval(offset)? as u32 as usize;
            let memory =
                self.inner().core.memory.as_ref().ok_or_else(|| Error::Link("data segment without a memory".into()))?;
            // SAFETY: no guest code runs during instantiation, and no other
            // slice of the memory is live here.
            let bytes = unsafe { memory.bytes_mut() };
            let Some(target) = bytes.get_mut(start..start + segment.bytes.len()) else {
                return Err(Error::Trap(Trap {
                    kind: TrapKind::MemoryOutOfBounds,
                    func_index: None,
                    func_name: None,
                    wasm_offset: None,
                    detail: Some("data segment does not fit in memory".into()),
                }));
            };
            target.copy_from_slice(&segment.bytes);
        }
        Ok(())
    }

    pub fn code(&self) -> &Arc<Code> {
        &self.inner().code
    }

    pub fn data(&self) -> &T {
        &self.inner().data
    }

    pub fn data_mut(&mut self) -> &mut T {
        &mut self.inner_mut().data
    }

    pub fn memory(&self) -> Option<&Rc<LinearMemory>> {
        self.inner().core.memory.as_ref()
    }

    pub fn table(&self) -> Option<&Rc<Table>> {
        self.inner().table.as_ref()
    }

    /// The raw 8-byte value of global `index`, or None if there is no such global.
    pub fn global_get(&self, index: u32) -> Option<u64> {
        let slot = self.inner().global_slot(index)?;
        // SAFETY: `global_slot` returns a live slot, accessed only through raw
        // pointers; no guest code runs during `&self`.
        Some(unsafe { *slot })
    }

    /// Write global `index` (whatever its mutability: the host owns the
    /// guest); an error if there is no such global.
    pub fn global_set(&mut self, index: u32, value: u64) -> Result<()> {
        let slot = self.inner().global_slot(index).ok_or_else(|| Error::Link(format!("no global {index}")))?;
        // SAFETY: as in `global_get`.
        unsafe { *slot = value };
        Ok(())
    }

    /// A handle on global `index`'s storage that keeps this instance alive,
    /// or None if there is no such global.
    pub fn global_ref(&self, index: u32) -> Option<Global> {
        let ty = *self.inner().global_types.get(index as usize)?;
        let slot = self.inner().global_slot(index)?;
        // SAFETY: the slot is in this instance's vmctx (or in storage it keeps
        // alive), which lives as long as the keep-alive, and is only accessed
        // through raw pointers.
        Some(unsafe { Global::from_slot(ty, slot, self.keep_alive()) })
    }

    /// The address of global `index`'s storage, valid while the instance
    /// lives, for readers outside the guest's thread (the watchdog).
    pub fn global_ptr(&self, index: u32) -> Option<*mut u64> {
        self.inner().global_slot(index)
    }

    /// Which defined functions ran in this instance, one byte each (1: it
    /// was entered at least once, 0: never), indexed by defined-function
    /// index (`Code::function_name` names them); None when the code was
    /// compiled without `CompileConfig::function_bitmap`. A byte is set on
    /// entry, so a call still suspended counts, and so does a function that
    /// trapped at its first instruction.
    pub fn functions_ran(&self) -> Option<&[u8]> {
        let code = &self.inner().code;
        if !code.artifact().function_bitmap {
            return None;
        }
        let start = vmctx::function_ran_offset(code.info().globals.len(), 0).expect("checked by compile") as usize;
        self.vmctx_bytes(start, code.num_defined_functions() as usize)
    }

    /// Which conditional-branch outcomes ran in this instance: the edge map,
    /// `vmctx::EDGE_MAP_BYTES` bytes, 1 where some outcome hashing to it
    /// (`vmctx::edge_byte`) was taken; None when the code was compiled without
    /// `CompileConfig::edge_bitmap`. Set before the branch, so a call still
    /// suspended counts.
    pub fn edges_ran(&self) -> Option<&[u8]> {
        let code = &self.inner().code;
        if !code.artifact().edge_bitmap {
            return None;
        }
        let start = vmctx::edge_map_offset(code.info().globals.len(), code.num_defined_functions())
            .expect("checked by compile") as usize;
        self.vmctx_bytes(start, vmctx::EDGE_MAP_BYTES)
    }

    /// `len` bytes of the vmctx storage from byte `start`.
    fn vmctx_bytes(&self, start: usize, len: usize) -> Option<&[u8]> {
        let storage = &self.inner().vmctx;
        debug_assert!(start + len <= storage.len() * 8);
        // SAFETY: the bytes lie inside the vmctx storage (allocated with
        // `function_bitmap_slots` and the edge map's slots for this code),
        // which lives as long as `&self`; `UnsafeCell<u64>` has the layout of
        // `u64`, so its bytes may be read as `u8`s; no guest code (the only
        // writer) runs while `&self` is held (see `inner`).
        Some(unsafe { std::slice::from_raw_parts((storage.as_ptr() as *const u8).add(start), len) })
    }

    pub fn is_suspended(&self) -> bool {
        self.call.is_some()
    }

    /// Call export `name` with `args`.
    pub fn call(&mut self, name: &str, args: &[Val]) -> Result<Run> {
        let export = self.inner().code.info().export(name).cloned();
        match export {
            Some(e) if e.kind == ExportKind::Func => self.call_index(e.index, args),
            _ => Err(Error::Link(format!("no exported function {name:?}"))),
        }
    }

    /// Call function `func_index` with `args`.
    pub fn call_index(&mut self, func_index: u32, args: &[Val]) -> Result<Run> {
        if self.call.is_some() {
            return Err(Error::Link("a call is already suspended in this instance".into()));
        }
        let code = self.inner().code.clone();
        if func_index >= code.info().num_funcs() {
            return Err(Error::Link(format!("no function {func_index}")));
        }
        let ty = code.info().func_type(func_index).clone();
        let arg_types: Vec<ValType> = args.iter().map(|a| a.ty()).collect();
        if arg_types != ty.params {
            return Err(Error::Link(format!("arguments {arg_types:?} do not match parameters {:?}", ty.params)));
        }
        let mut values = vec![0u64; ty.params.len().max(ty.results.len()).max(1)].into_boxed_slice();
        for (slot, arg) in values.iter_mut().zip(args) {
            *slot = arg.to_slot();
        }
        let trampoline = code.trampoline_address(ty.signature_id()).expect("a trampoline per type");
        let callee = code.function_address(func_index);
        let vmctx = self.inner().vmctx_ptr() as usize;
        let values_ptr = values.as_mut_ptr() as usize;
        let fiber = Fiber::new(move || {
            // SAFETY: the trampoline for this signature has this ABI; the
            // vmctx (owned by the instance) and `values` (owned by the pending
            // call) stay alive until the fiber finishes or is abandoned, which
            // `Instance::drop` does first.
            unsafe {
                let f: unsafe extern "C" fn(usize, usize, usize) = std::mem::transmute(trampoline);
                f(vmctx, callee, values_ptr);
            }
        })
        .map_err(|e| Error::Os(format!("allocating a fiber stack: {e}")))?;
        self.call = Some(PendingCall { fiber, results: ty.results.clone(), values });
        Ok(self.run(0))
    }

    /// Continue a suspended call; `value` is what the host function's `suspend` returns.
    pub fn resume(&mut self, value: u64) -> Result<Run> {
        if self.call.is_none() {
            return Err(Error::Link("resume without a suspended call".into()));
        }
        Ok(self.run(value))
    }

    /// Drop a suspended call without running any more guest code.
    pub fn abandon(&mut self) {
        if let Some(mut call) = self.call.take() {
            call.fiber.abandon();
        }
    }

    #[inline]
    fn run(&mut self, value: u64) -> Run {
        let call = self.call.as_mut().expect("a pending call");
        let step = resume_fiber(&mut call.fiber, value);
        let run = match step {
            FiberStep::Suspended(v) => return Run::Suspended(v),
            FiberStep::Finished => {
                let results =
                    call.results.iter().zip(call.values.iter()).map(|(t, v)| Val::from_slot(*t, *v)).collect();
                Run::Returned(results)
            }
            FiberStep::Fault { pc, signal } => Run::Trapped(fault_trap(&self.inner().code, pc, signal)),
            FiberStep::Yielded(FiberYield::Trap { kind, func_index }) => {
                Run::Trapped(explicit_trap(&self.inner().code, kind, func_index))
            }
            FiberStep::Yielded(FiberYield::Abort) => match self.inner_mut().core.pending.take() {
                Some(HostError::Exit(code)) => Run::Exited(code),
                Some(HostError::Trap(trap)) => Run::Trapped(trap),
                Some(HostError::Fail(message)) => Run::Trapped(Trap {
                    kind: TrapKind::HostError,
                    func_index: None,
                    func_name: None,
                    wasm_offset: None,
                    detail: Some(message),
                }),
                None => unreachable!("abort without a reason"),
            },
            FiberStep::Yielded(FiberYield::Suspend(_)) => unreachable!("suspend is FiberStep::Suspended"),
        };
        self.call = None;
        run
    }

    /// Export `name` as something another instance can import. A function
    /// or global keeps this instance alive, so it stays valid after the
    /// `Instance` is dropped.
    pub fn export<U>(&self, name: &str) -> Option<Extern<U>> {
        let export = self.inner().code.info().export(name)?.clone();
        Some(match export.kind {
            ExportKind::Memory => Extern::Memory(self.inner().core.memory.clone()?),
            ExportKind::Table => Extern::Table(self.inner().table.clone()?),
            ExportKind::Global => Extern::Global(self.global_ref(export.index)?),
            ExportKind::Func => {
                let code = self.inner().code.clone();
                let ty = code.info().func_type(export.index).clone();
                let func = cross_instance_call(self.keep_alive(), code, export.index, self.inner().vmctx_ptr());
                Extern::Func { ty, func }
            }
        })
    }
}

/// A hardware fault at `pc` during a call into `own`'s code. The faulting
/// code may be another module's, reached through a shared table.
fn fault_trap(own: &Code, pc: usize, signal: i32) -> Trap {
    if own.contains(pc) {
        return own.trap_at_pc(pc, signal);
    }
    code::trap_at_any_pc(pc, signal).unwrap_or_else(|| Trap {
        kind: TrapKind::HostError,
        func_index: None,
        func_name: None,
        wasm_offset: None,
        detail: Some(format!("fault at {pc:#x} outside any loaded module's code (signal {signal})")),
    })
}

/// An explicit-mode trap during a call into `own`'s code, named in the module
/// whose code raised it (another one when reached through a shared table).
fn explicit_trap(own: &Code, kind: TrapKind, func_index: u32) -> Trap {
    let origin = libcalls::take_trap_origin();
    // SAFETY: the origin is the code of an instance whose function just ran on
    // this thread; instances reachable through tables outlive their calls.
    let code = if origin.is_null() { own } else { unsafe { &*origin } };
    code.trap_in_function(kind, func_index)
}

/// A host function that calls function `index` of another instance (whose
/// vmctx is `vmctx`, kept alive by `owner`) on a nested fiber, so a trap there
/// is attributed to the right module.
fn cross_instance_call<T>(owner: Rc<dyn Any>, code: Arc<Code>, index: u32, vmctx: *mut VmCtx) -> HostFunc<T> {
    Rc::new(move |_caller: &mut Caller<'_, T>, values: &mut [u64]| {
        let _alive = &owner;
        let ty = code.info().func_type(index);
        let trampoline = code.trampoline_address(ty.signature_id()).expect("a trampoline per type");
        let callee = code.function_address(index);
        let values_ptr = values.as_mut_ptr() as usize;
        let vmctx = vmctx as usize;
        let mut fiber = Fiber::new(move || {
            // SAFETY: the trampoline for this signature has this ABI; `owner`
            // keeps the vmctx alive and `values` (the importer's stub buffer,
            // sized for this type, which matched at link time) outlives the
            // fiber, which finishes or is abandoned before this returns.
            unsafe {
                let f: unsafe extern "C" fn(usize, usize, usize) = std::mem::transmute(trampoline);
                f(vmctx, callee, values_ptr);
            }
        })
        .map_err(|e| HostError::Fail(format!("allocating a fiber stack: {e}")))?;
        match resume_fiber(&mut fiber, 0) {
            FiberStep::Finished => Ok(()),
            FiberStep::Fault { pc, signal } => Err(HostError::Trap(fault_trap(&code, pc, signal))),
            FiberStep::Yielded(FiberYield::Trap { kind, func_index }) => {
                Err(HostError::Trap(explicit_trap(&code, kind, func_index)))
            }
            FiberStep::Yielded(_) | FiberStep::Suspended(_) => {
                fiber.abandon();
                Err(HostError::Fail("a function of another instance stopped in a host call".into()))
            }
        }
    })
}

impl<T> Drop for Instance<T> {
    fn drop(&mut self) {
        if let Some(mut call) = self.call.take() {
            call.fiber.abandon();
        }
    }
}
