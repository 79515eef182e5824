//! Instances: a loaded module's code bound to its own memory, table, globals
//! and host state `T`, and the calls into it.
//!
//! Instantiation resolves imports through a `Linker`, builds the vmctx, fills
//! globals, table and memory from the module's segments (bulk-memory order:
//! each segment is bounds-checked as it is applied) and runs the start function.
//! If that fails after the instance's functions went into an imported table,
//! the instance is leaked rather than freed: the table still calls into it.
//! Every call runs on a fresh fiber (`Fiber`); `Run::Suspended` hands control
//! back to the owner, who later `resume`s or `abandon`s it. After a trap or an
//! exit the instance stays usable for new calls (the wasm spec tests rely on
//! that); whether a node survives is the host's policy, not the engine's.

use crate::error::{Error, Result};
use crate::module::{ConstExpr, ConstOp, ExportKind, FuncType, GlobalType, ImportKind, ValType};
use crate::runtime::code::{self, Code};
use crate::runtime::fiber::{Fiber, FiberStep, FiberYield};
use crate::runtime::host::{Caller, Extern, GlobalRef, HostError, HostFunc, Linker, Val};
use crate::runtime::libcalls;
use crate::runtime::memory::LinearMemory;
use crate::runtime::table::{Table, TableEntry};
use crate::runtime::trap::{Trap, TrapKind};
use crate::runtime::vmctx::{self, VmCtx, VmCtxHeader};
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, catch_unwind};
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

/// The part of an instance the (non-generic) libcalls need. First field of
/// `InstanceInner<T>`, so a pointer to one is a pointer to the other.
#[repr(C)]
pub(crate) struct InstanceCore {
    pub dispatch: unsafe fn(*mut InstanceCore, u32, *mut u64) -> std::result::Result<(), HostError>,
    /// The instance's code (owned by `InstanceInner::code`), for naming traps.
    pub code: *const Code,
    pub memory: Option<Arc<LinearMemory>>,
    /// Why the running call was aborted by a host function.
    pub pending: Option<HostError>,
}

#[repr(C)]
struct InstanceInner<T> {
    core: InstanceCore,
    code: Arc<Code>,
    table: Option<Arc<Table>>,
    /// Header + one slot per global; boxed so compiled code's pointer is stable.
    vmctx: Box<[u64]>,
    global_types: Vec<GlobalType>,
    /// Globals below this index are imported (their slot holds a pointer).
    num_imported_globals: u32,
    /// Host function per function import, by function index.
    host_funcs: Vec<(FuncType, HostFunc<T>)>,
    data: T,
}

impl<T> InstanceInner<T> {
    fn vmctx_ptr(&mut self) -> *mut VmCtx {
        self.vmctx.as_mut_ptr() as *mut VmCtx
    }

    fn header(&mut self) -> &mut VmCtxHeader {
        // SAFETY: the storage starts with a VmCtxHeader.
        unsafe { &mut (*self.vmctx_ptr()).header }
    }

    fn global_slot(&mut self, index: u32) -> *mut u64 {
        let imported = index < self.num_imported_globals;
        // SAFETY: one slot per global after the header.
        unsafe {
            let slot = self.vmctx.as_mut_ptr().add(vmctx::HEADER_SIZE / 8 + index as usize);
            if imported { *slot as *mut u64 } else { slot }
        }
    }
}

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

pub struct Instance<T> {
    inner: Box<InstanceInner<T>>,
    call: Option<PendingCall>,
    /// Not `Send`: the vmctx points at this thread's stack-limit thread-local,
    /// and a suspended fiber must be resumed on the thread it ran on.
    _not_send: std::marker::PhantomData<*const ()>,
}

unsafe fn dispatch<T>(core: *mut InstanceCore, index: u32, values: *mut u64) -> std::result::Result<(), HostError> {
    // SAFETY: `core` is the first field of this instance's InstanceInner<T>.
    let inner = unsafe { &mut *(core as *mut InstanceInner<T>) };
    let (ty, func): &(FuncType, HostFunc<T>) = &inner.host_funcs[index as usize];
    let len = ty.params.len().max(ty.results.len()).max(1);
    // SAFETY: the import stub passes a buffer of exactly this many slots.
    let values = unsafe { std::slice::from_raw_parts_mut(values, len) };
    let globals = unsafe { inner.vmctx.as_mut_ptr().add(vmctx::HEADER_SIZE / 8) };
    let mut caller = Caller {
        data: &mut inner.data,
        memory: inner.core.memory.as_deref(),
        globals,
        global_types: &inner.global_types,
        num_imported_globals: inner.num_imported_globals,
    };
    match catch_unwind(AssertUnwindSafe(|| func(&mut caller, values))) {
        Ok(result) => result,
        Err(panic) => Err(HostError::Fail(format!("host function panicked: {}", crate::error::panic_message(&*panic)))),
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
                    let max_ok = match (decl.max_pages, m.declared_max_pages()) {
                        (None, _) => true,
                        (Some(want), Some(have)) => have <= want,
                        (Some(_), None) => false,
                    };
                    if m.pages() < decl.min_pages || !max_ok {
                        return Err(link_error(module, name, "incompatible import type"));
                    }
                    memory = Some(m.clone());
                }
                (ImportKind::Table(decl), Extern::Table(t)) => {
                    let max_ok = match (decl.max, t.max) {
                        (None, _) => true,
                        (Some(want), Some(have)) => have <= want,
                        (Some(_), None) => false,
                    };
                    if (t.entries.len() as u64) < decl.min || !max_ok {
                        return Err(link_error(module, name, "incompatible import type"));
                    }
                    table = Some(t.clone());
                }
                (ImportKind::Global(ty), Extern::Global(g)) => {
                    if g.ty != *ty {
                        return Err(link_error(module, name, "incompatible import type"));
                    }
                    imported_globals.push(g.slot);
                }
                _ => return Err(link_error(module, name, "incompatible import type")),
            }
        }
        if memory.is_none() {
            if let Some(decl) = info.memory {
                memory = Some(Arc::new(LinearMemory::new(decl.min_pages, decl.max_pages)?));
            }
        }
        if table.is_none() {
            if let Some(decl) = info.table {
                table = Some(Arc::new(Table::new(decl.min, decl.max)));
            }
        }

        let mut vmctx_storage = vec![0u64; vmctx::HEADER_SIZE / 8 + info.globals.len()].into_boxed_slice();
        for (i, slot) in imported_globals.iter().enumerate() {
            vmctx_storage[vmctx::HEADER_SIZE / 8 + i] = *slot as u64;
        }
        let mut inner = Box::new(InstanceInner {
            core: InstanceCore { dispatch: dispatch::<T>, code: Arc::as_ptr(&code), memory, pending: None },
            code: code.clone(),
            table,
            vmctx: vmctx_storage,
            global_types: info.globals.iter().map(|g| g.ty).collect(),
            num_imported_globals: info.num_imported_globals(),
            host_funcs,
            data,
        });
        let core_ptr = &mut inner.core as *mut InstanceCore as *mut u8;
        let (mem_base, mem_def) = match &inner.core.memory {
            Some(m) => (m.base(), m.def_ptr()),
            None => (std::ptr::null_mut(), std::ptr::null()),
        };
        let (table_base, table_len) = match &inner.table {
            Some(t) => (t.entries.as_ptr(), t.entries.len() as u64),
            None => (std::ptr::null(), 0),
        };
        *inner.header() = VmCtxHeader {
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
        };

        let mut instance = Instance { inner, call: None, _not_send: std::marker::PhantomData };
        let mut exposed = false;
        if let Err(error) = instance.initialize(&mut exposed) {
            if exposed {
                // An imported table now holds functions of this instance (the
                // spec keeps a failed instantiation's writes), and nothing
                // else owns their code and vmctx: keep them alive for good.
                std::mem::forget(instance);
            }
            return Err(error);
        }
        Ok(instance)
    }

    /// Globals, element segments, data segments, start function, in the spec's
    /// order. Each segment is bounds-checked as it is applied, so earlier writes
    /// to imported tables and memories stay when a later segment fails.
    /// `exposed` is set once a function of this instance is in an imported table.
    fn initialize(&mut self, exposed: &mut bool) -> Result<()> {
        self.init_globals()?;
        self.init_table(exposed)?;
        self.init_memory()?;
        let Some(start) = self.inner.code.info().start else { return Ok(()) };
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
                // SAFETY: validated index; the slot (or the imported one) is live.
                ConstOp::GlobalGet(i) => unsafe { *self.inner.global_slot(i) },
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
        let code = self.inner.code.clone();
        for (i, global) in code.info().globals.iter().enumerate() {
            if let Some(init) = &global.init {
                let value = self.eval(init)?;
                // SAFETY: a defined global's own slot.
                unsafe { *self.inner.global_slot(i as u32) = value };
            }
        }
        Ok(())
    }

    fn init_table(&mut self, exposed: &mut bool) -> Result<()> {
        let code = self.inner.code.clone();
        let vmctx = self.inner.vmctx_ptr();
        let prepared = code.prepared();
        for (segment, template) in code.info().elements.iter().zip(&prepared.elements) {
            let Some(offset) = &segment.offset else { continue };
            let start = self.eval(offset)? as u32 as usize;
            let table =
                self.inner.table.as_ref().ok_or_else(|| Error::Link("element segment without a table".into()))?;
            if start + segment.funcs.len() > table.entries.len() {
                return Err(Error::Trap(Trap {
                    kind: TrapKind::TableAccessOutOfBounds,
                    func_index: None,
                    func_name: None,
                    wasm_offset: None,
                    detail: Some("element segment does not fit in the table".into()),
                }));
            }
            let entries = table.entries.as_ptr() as *mut TableEntry;
            for (i, func) in template.iter().enumerate() {
                let entry = match *func {
                    Some((code, signature)) => TableEntry { code, vmctx, signature },
                    None => TableEntry::NULL,
                };
                // SAFETY: bounds checked above; tables are only written here,
                // before any guest code of the importers can run.
                unsafe { *entries.add(start + i) = entry };
                *exposed |= func.is_some() && code.info().table_imported;
            }
        }
        Ok(())
    }

    fn init_memory(&mut self) -> Result<()> {
        let code = self.inner.code.clone();
        if let (Some(image), Some(memory)) = (&code.prepared().memory, &self.inner.core.memory) {
            // SAFETY: the image exists only for a memory this instance
            // created (not imported), just now, with no guest code run yet.
            if unsafe { image.map_at(memory.base(), memory.size_bytes()) } {
                return Ok(());
            }
        }
        for segment in &code.info().data {
            let Some(offset) = &segment.offset else { continue };
            let start = self.eval(offset)? as u32 as usize;
            let memory =
                self.inner.core.memory.as_ref().ok_or_else(|| Error::Link("data segment without a memory".into()))?;
            // SAFETY: no guest code runs during instantiation.
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
        &self.inner.code
    }

    pub fn data(&self) -> &T {
        &self.inner.data
    }

    pub fn data_mut(&mut self) -> &mut T {
        &mut self.inner.data
    }

    pub fn memory(&self) -> Option<&Arc<LinearMemory>> {
        self.inner.core.memory.as_ref()
    }

    pub fn table(&self) -> Option<&Arc<Table>> {
        self.inner.table.as_ref()
    }

    pub fn global_get(&mut self, index: u32) -> u64 {
        // SAFETY: `global_slot` returns a live slot for a valid index.
        unsafe { *self.inner.global_slot(index) }
    }

    pub fn global_set(&mut self, index: u32, value: u64) {
        // SAFETY: as above.
        unsafe { *self.inner.global_slot(index) = value }
    }

    /// A shareable reference to global `index`'s storage.
    pub fn global_ref(&mut self, index: u32) -> GlobalRef {
        GlobalRef { ty: self.inner.global_types[index as usize], slot: self.inner.global_slot(index) }
    }

    pub fn is_suspended(&self) -> bool {
        self.call.is_some()
    }

    /// Call export `name` with `args`.
    pub fn call(&mut self, name: &str, args: &[Val]) -> Result<Run> {
        let export = self.inner.code.info().export(name).cloned();
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
        let code = self.inner.code.clone();
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
        let vmctx = self.inner.vmctx_ptr() as usize;
        let values_ptr = values.as_mut_ptr() as usize;
        let fiber = Fiber::new(move || {
            // SAFETY: the trampoline has this signature; vmctx and values stay
            // alive until the fiber is finished or abandoned.
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
            FiberStep::Fault { pc, signal } => Run::Trapped(fault_trap(&self.inner.code, pc, signal)),
            FiberStep::Yielded(FiberYield::Trap { kind, func_index }) => {
                Run::Trapped(explicit_trap(&self.inner.code, kind, func_index))
            }
            FiberStep::Yielded(FiberYield::Abort) => match self.inner.core.pending.take() {
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

    /// Export `name` as something another instance can import. The returned
    /// item refers to this instance: keep the instance alive while it is used.
    pub fn export(&mut self, name: &str) -> Option<Extern<T>> {
        let export = self.inner.code.info().export(name)?.clone();
        Some(match export.kind {
            ExportKind::Memory => Extern::Memory(self.inner.core.memory.clone()?),
            ExportKind::Table => Extern::Table(self.inner.table.clone()?),
            ExportKind::Global => Extern::Global(self.global_ref(export.index)),
            ExportKind::Func => {
                let code = self.inner.code.clone();
                let ty = code.info().func_type(export.index).clone();
                let vmctx = self.inner.vmctx_ptr() as usize;
                let func = cross_instance_call(code, export.index, vmctx);
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

/// A host function that calls function `index` of another instance on a
/// nested fiber, so a trap there is attributed to the right module.
fn cross_instance_call<T>(code: Arc<Code>, index: u32, vmctx: usize) -> HostFunc<T> {
    Arc::new(move |_caller: &mut Caller<'_, T>, values: &mut [u64]| {
        let ty = code.info().func_type(index);
        let trampoline = code.trampoline_address(ty.signature_id()).expect("a trampoline per type");
        let callee = code.function_address(index);
        let values_ptr = values.as_mut_ptr() as usize;
        let mut fiber = Fiber::new(move || unsafe {
            let f: unsafe extern "C" fn(usize, usize, usize) = std::mem::transmute(trampoline);
            f(vmctx, callee, values_ptr);
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
