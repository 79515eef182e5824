//! Typed host-call parameters: a host function declares its parameters as a
//! tuple of Rust integers (`(u32, i64, u32)`), and the binding derives the
//! wasm signature from that tuple and decodes the engine's 8-byte argument
//! slots into it. The signature the linker checks at instantiation and the
//! values the function reads come from one declaration, so they cannot
//! disagree, and no function body indexes the argument slots itself.
//!
//! What it does not do: trace, or turn a body's outcome into an errno
//! (`wasi::bind` and `sdk::bind` do, each by its module's convention), or
//! allocate: decoding copies a few integers out of the slot buffer.

use seedfall_engine::{Caller, HostError, Linker, ValType};

/// One parameter: its wasm type and how its slot decodes. The engine
/// zero-extends a 32-bit argument into its slot, so an `i32` or `u32` is the
/// slot's low half.
pub trait Param: Copy {
    const TYPE: ValType;
    fn from_slot(slot: u64) -> Self;
}

impl Param for u32 {
    const TYPE: ValType = ValType::I32;
    fn from_slot(slot: u64) -> u32 {
        slot as u32
    }
}

impl Param for i32 {
    const TYPE: ValType = ValType::I32;
    fn from_slot(slot: u64) -> i32 {
        slot as u32 as i32
    }
}

impl Param for u64 {
    const TYPE: ValType = ValType::I64;
    fn from_slot(slot: u64) -> u64 {
        slot
    }
}

impl Param for i64 {
    const TYPE: ValType = ValType::I64;
    fn from_slot(slot: u64) -> i64 {
        slot as i64
    }
}

/// A host function's whole parameter list, a tuple of `Param`s.
pub trait Params: Sized {
    /// The wasm parameter types, in order.
    const TYPES: &'static [ValType];
    /// The arguments from the slot buffer; `None` when it holds fewer slots
    /// than the function has parameters (the engine never does that).
    fn decode(slots: &[u64]) -> Option<Self>;
}

macro_rules! tuple_params {
    ($($ty:ident $slot:ident),*) => {
        impl<$($ty: Param),*> Params for ($($ty,)*) {
            const TYPES: &'static [ValType] = &[$($ty::TYPE),*];
            fn decode(slots: &[u64]) -> Option<Self> {
                let [$($slot,)* ..] = *slots else { return None };
                Some(($($ty::from_slot($slot),)*))
            }
        }
    };
}

impl Params for () {
    const TYPES: &'static [ValType] = &[];
    fn decode(_: &[u64]) -> Option<()> {
        Some(())
    }
}

tuple_params!(A a);
tuple_params!(A a, B b);
tuple_params!(A a, B b, C c);
tuple_params!(A a, B b, C c, D d);
tuple_params!(A a, B b, C c, D d, E e);
tuple_params!(A a, B b, C c, D d, E e, F f);
tuple_params!(A a, B b, C c, D d, E e, F f, G g);
tuple_params!(A a, B b, C c, D d, E e, F f, G g, H h);
tuple_params!(A a, B b, C c, D d, E e, F f, G g, H h, I i);

/// Binds `module.name`, with parameters `P` and `results`. `body` gets the
/// decoded arguments, and the argument slots as they arrived for the trace
/// to record; it returns the result's slot (unused without a result).
pub fn func<T, P: Params + 'static>(
    linker: &mut Linker<T>,
    module: &str,
    name: &'static str,
    results: &'static [ValType],
    body: impl Fn(&mut Caller<'_, T>, P, &[u64]) -> Result<u64, HostError> + 'static,
) {
    linker.func(module, name, P::TYPES, results, move |caller, slots| {
        let args = decode::<P>(name, slots)?;
        let result = body(caller, args, &slots[..P::TYPES.len()])?;
        if let Some(first) = slots.first_mut().filter(|_| !results.is_empty()) {
            *first = result;
        }
        Ok(())
    });
}

/// Decodes the arguments of host function `name`, or the internal-error trap
/// a short slot buffer gets (the guest stops; the host does not panic).
fn decode<P: Params>(name: &str, slots: &[u64]) -> Result<P, HostError> {
    P::decode(slots).ok_or_else(|| {
        HostError::Fail(format!("host call {name}: {} argument slots for {} parameters", slots.len(), P::TYPES.len()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use seedfall_engine::ValType::*;

    #[test]
    fn the_tuple_is_the_signature() {
        assert_eq!(<(u32, i64, u32)>::TYPES, &[I32, I64, I32]);
        assert_eq!(<()>::TYPES, &[] as &[ValType]);
        assert_eq!(<(i32, u64, u32, u32, u32, u64, i64, u32, u32)>::TYPES.len(), 9);
    }

    #[test]
    fn slots_decode_by_type() {
        let slots = [0xffff_ffff, u64::MAX, 7];
        assert_eq!(<(u32, i64, i32)>::decode(&slots), Some((u32::MAX, -1, 7)));
        assert_eq!(<(i32, u64)>::decode(&slots), Some((-1, u64::MAX)), "extra slots (results) are ignored");
    }

    #[test]
    fn too_few_slots_is_a_trap_not_a_panic() {
        let err = decode::<(u32, u32, u32)>("fd_seek", &[1, 2]).unwrap_err();
        assert_eq!(err, HostError::Fail("host call fd_seek: 2 argument slots for 3 parameters".into()));
    }
}
