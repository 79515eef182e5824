//! The host-function API: how the `host` crate (and tests) bind Rust functions
//! to a module's imports, and what those functions can do while the guest
//! waits — read and write its memory and globals, and suspend it.
//!
//! Values cross the boundary as 8-byte slots (`&mut [u64]`): arguments in,
//! results out, a 32-bit value zero-extended in the low half. A host function returns
//! `Err(HostError::Exit)` to end the guest (proc_exit) and `Err(HostError::Fail)`
//! to kill it with an internal-error trap; a panic is caught and becomes the
//! same trap, never an abort of the process.
//!
//! Everything an import can be bound to is an owned handle: a host function,
//! memory or table behind an `Rc`, a `Global` that keeps its storage alive.
//! What an instance exports keeps that instance alive (`Instance::export`), so
//! no handle can outlive the storage it points at. Handles are `!Send`: an
//! instance and everything linked to it live on one thread.

use crate::module::{FuncType, GlobalType, ValType};
use crate::runtime::fiber::{self, FiberYield};
use crate::runtime::memory::LinearMemory;
use crate::runtime::table::Table;
use std::any::Any;
use std::cell::UnsafeCell;
use std::collections::BTreeMap;
use std::rc::Rc;

/// A wasm value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Val {
    I32(i32),
    I64(i64),
    /// Raw bits, so NaN payloads survive.
    F32(u32),
    F64(u64),
}

impl Val {
    pub fn ty(self) -> ValType {
        match self {
            Val::I32(_) => ValType::I32,
            Val::I64(_) => ValType::I64,
            Val::F32(_) => ValType::F32,
            Val::F64(_) => ValType::F64,
        }
    }

    pub fn to_slot(self) -> u64 {
        match self {
            Val::I32(v) => v as u32 as u64,
            Val::I64(v) => v as u64,
            Val::F32(v) => v as u64,
            Val::F64(v) => v,
        }
    }

    pub fn from_slot(ty: ValType, slot: u64) -> Val {
        match ty {
            ValType::I32 => Val::I32(slot as u32 as i32),
            ValType::I64 => Val::I64(slot as i64),
            ValType::F32 => Val::F32(slot as u32),
            ValType::F64 => Val::F64(slot),
        }
    }
}

/// Why a host function stops the guest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostError {
    /// The guest asked to exit with this code (WASI `proc_exit`).
    Exit(i32),
    /// The host failed; the guest traps with `TrapKind::HostError`.
    Fail(String),
    /// Wasm code the host function called (another instance) trapped; the
    /// caller traps the same way.
    Trap(crate::runtime::trap::Trap),
}

pub type HostFunc<T> = Rc<dyn Fn(&mut Caller<'_, T>, &mut [u64]) -> Result<(), HostError>>;

/// A global's 8-byte storage (f32/f64 as raw bits), shared with importers.
/// The handle keeps the storage alive: a global the host made, or the
/// instance that exported it.
#[derive(Clone)]
pub struct Global {
    ty: GlobalType,
    slot: *mut u64,
    _owner: Rc<dyn Any>,
}

impl Global {
    /// A global owned by the host, holding `value`.
    pub fn new(ty: GlobalType, value: u64) -> Global {
        let cell = Rc::new(UnsafeCell::new(value));
        Global { ty, slot: cell.get(), _owner: cell }
    }

    /// `slot` inside storage `owner` keeps alive.
    ///
    /// # Safety
    /// `slot` must be valid for reads and writes of a `u64` while `owner`
    /// lives, and only ever accessed through raw pointers (it is a vmctx slot).
    pub(crate) unsafe fn from_slot(ty: GlobalType, slot: *mut u64, owner: Rc<dyn Any>) -> Global {
        Global { ty, slot, _owner: owner }
    }

    pub fn ty(&self) -> GlobalType {
        self.ty
    }

    pub fn get(&self) -> u64 {
        // SAFETY: the owner keeps the slot alive; it is only accessed through
        // raw pointers, and Global is !Send, so no other thread touches it.
        unsafe { *self.slot }
    }

    /// Write the value, whatever the global's mutability (the host's choice).
    pub fn set(&self, value: u64) {
        // SAFETY: as in `get`.
        unsafe { *self.slot = value }
    }

    /// The slot's address, valid while this handle (or a clone) lives.
    pub fn as_ptr(&self) -> *mut u64 {
        self.slot
    }
}

impl std::fmt::Debug for Global {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Global").field("ty", &self.ty).field("value", &self.get()).finish()
    }
}

/// Something an import can be bound to.
pub enum Extern<T> {
    Func { ty: FuncType, func: HostFunc<T> },
    Memory(Rc<LinearMemory>),
    Table(Rc<Table>),
    Global(Global),
}

impl<T> Clone for Extern<T> {
    fn clone(&self) -> Self {
        match self {
            Extern::Func { ty, func } => Extern::Func { ty: ty.clone(), func: func.clone() },
            Extern::Memory(m) => Extern::Memory(m.clone()),
            Extern::Table(t) => Extern::Table(t.clone()),
            Extern::Global(g) => Extern::Global(g.clone()),
        }
    }
}

/// Import bindings by (module, name).
pub struct Linker<T> {
    items: BTreeMap<(String, String), Extern<T>>,
    /// The most pages a memory defined by an instance made with this linker
    /// may have (None: wasm32's 4 GiB or the declared maximum).
    memory_cap_pages: Option<u64>,
}

impl<T> Default for Linker<T> {
    fn default() -> Self {
        Linker { items: BTreeMap::new(), memory_cap_pages: None }
    }
}

impl<T> Linker<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Cap the linear memory each instance defines at `bytes` (rounded down to
    /// whole pages): `memory.grow` past it fails, a larger minimum is an
    /// instantiation error. Imported memories keep their own limits.
    pub fn set_memory_cap_bytes(&mut self, bytes: u64) -> &mut Self {
        self.memory_cap_pages = Some(bytes / crate::runtime::memory::PAGE_SIZE);
        self
    }

    pub fn memory_cap_pages(&self) -> Option<u64> {
        self.memory_cap_pages
    }

    /// Bind a host function of type `params -> results`.
    pub fn func(
        &mut self,
        module: &str,
        name: &str,
        params: &[ValType],
        results: &[ValType],
        func: impl Fn(&mut Caller<'_, T>, &mut [u64]) -> Result<(), HostError> + 'static,
    ) -> &mut Self {
        let ty = FuncType { params: params.to_vec(), results: results.to_vec() };
        self.define(module, name, Extern::Func { ty, func: Rc::new(func) })
    }

    pub fn define(&mut self, module: &str, name: &str, item: Extern<T>) -> &mut Self {
        self.items.insert((module.to_string(), name.to_string()), item);
        self
    }

    pub fn get(&self, module: &str, name: &str) -> Option<&Extern<T>> {
        self.items.get(&(module.to_string(), name.to_string()))
    }

    /// Every bound function as (module, name, type), in name order.
    pub fn funcs(&self) -> impl Iterator<Item = (&str, &str, &FuncType)> {
        self.items.iter().filter_map(|((module, name), item)| match item {
            Extern::Func { ty, .. } => Some((module.as_str(), name.as_str(), ty)),
            _ => None,
        })
    }
}

/// What a host function sees of the guest that called it.
pub struct Caller<'a, T> {
    pub(crate) data: &'a mut T,
    pub(crate) memory: Option<&'a LinearMemory>,
    pub(crate) globals: *mut u64,
    pub(crate) global_types: &'a [GlobalType],
    pub(crate) num_imported_globals: u32,
    pub(crate) code: &'a crate::runtime::code::Code,
    /// Where the import stub returns to, in the calling function's code.
    pub(crate) return_address: usize,
}

impl<T> Caller<'_, T> {
    /// The defined function (imports not counted) whose code called this
    /// host function; None if the runtime called it, not a wasm function.
    pub fn calling_function(&self) -> Option<u32> {
        let index = self.code.function_at_pc(self.return_address)?;
        index.checked_sub(self.code.info().num_imported_funcs)
    }

    pub fn data(&self) -> &T {
        self.data
    }

    pub fn data_mut(&mut self) -> &mut T {
        self.data
    }

    /// The guest's whole linear memory (empty if it has none).
    pub fn memory(&self) -> &[u8] {
        self.memory.map(|m| m.bytes()).unwrap_or(&[])
    }

    pub fn memory_mut(&mut self) -> &mut [u8] {
        match self.memory {
            // SAFETY: the guest is stopped in this host call and `&mut self`
            // makes this the only live view.
            Some(m) => unsafe { m.bytes_mut() },
            None => &mut [],
        }
    }

    /// The guest's memory and the host state at once, for host code that
    /// updates its state from what it reads in memory.
    pub fn memory_and_data(&mut self) -> (&mut [u8], &mut T) {
        let memory = match self.memory {
            // SAFETY: as in `memory_mut`; the host state is not in guest memory.
            Some(m) => unsafe { m.bytes_mut() },
            None => &mut [],
        };
        (memory, self.data)
    }

    /// `len` bytes at guest address `ptr`, or an error naming the bad range.
    pub fn read(&self, ptr: u32, len: u32) -> Result<&[u8], HostError> {
        let (start, end) = (ptr as usize, ptr as usize + len as usize);
        self.memory().get(start..end).ok_or_else(|| out_of_bounds(ptr, len))
    }

    pub fn write(&mut self, ptr: u32, bytes: &[u8]) -> Result<(), HostError> {
        let (start, end) = (ptr as usize, ptr as usize + bytes.len());
        let target = self.memory_mut().get_mut(start..end).ok_or_else(|| out_of_bounds(ptr, bytes.len() as u32))?;
        target.copy_from_slice(bytes);
        Ok(())
    }

    /// Panics on an index out of range: a host bug, which the dispatcher turns
    /// into a trap of the node.
    fn global_slot(&self, index: u32) -> *mut u64 {
        assert!((index as usize) < self.global_types.len(), "global {index} out of range");
        // SAFETY: the index is in range (above); the vmctx has one slot per
        // global, and an imported global's slot holds the address of storage
        // the instance keeps alive.
        unsafe {
            let slot = self.globals.add(index as usize);
            if index < self.num_imported_globals { *slot as *mut u64 } else { slot }
        }
    }

    /// Read global `index` (raw 8-byte slot).
    pub fn global_get(&self, index: u32) -> u64 {
        // SAFETY: `global_slot` returns a live slot; the guest is stopped.
        unsafe { *self.global_slot(index) }
    }

    /// Write global `index`, whatever its mutability (the host owns the guest).
    pub fn global_set(&mut self, index: u32, value: u64) {
        // SAFETY: as in `global_get`.
        unsafe { *self.global_slot(index) = value }
    }

    /// Stop the guest here and hand `value` to whoever resumed it; returns the
    /// value it is resumed with. Hold no value with a destructor across this
    /// call if the owner might abandon the guest instead of resuming it.
    #[inline]
    pub fn suspend(&mut self, value: u64) -> u64 {
        // SAFETY: a Caller exists only inside a host call, which runs on a
        // guest fiber; holding no destructors across it is the caller's part
        // (documented above), and abandoning leaks rather than frees them.
        unsafe { fiber::suspend_current(FiberYield::Suspend(value)) }
    }
}

fn out_of_bounds(ptr: u32, len: u32) -> HostError {
    HostError::Fail(format!("guest memory range {ptr:#x}+{len} is out of bounds"))
}
