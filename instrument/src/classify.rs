//! Classifying operators for the body rewriter: a `wasmparser` visitor that reports only what
//! `body` acts on (function-index operators, loops, other block starts, global reads).
//!
//! It does not rewrite or copy bytes, and it keeps no state: positions are the reader's business.

/// What the body rewriter needs to know about an operator.
#[derive(Clone, Copy)]
pub(crate) enum Op {
    /// `call` (0x10), `return_call` (0x12) or `ref.func` (0xd2) with its function index.
    Func(u8, u32),
    Loop,
    /// `global.get` with its global index.
    GlobalGet(u32),
    /// Another block-introducing instruction (`block`, `if`, `try`, `try_table`): only counted,
    /// for label names.
    Block,
    Other,
}

/// A `wasmparser` visitor that classifies operators without building `Operator` values (about
/// twice as fast as `OperatorsReader::read` on Go code).
pub(crate) struct Classify;

macro_rules! classify {
    ($( @$proposal:ident $op:ident $({ $($arg:ident: $argty:ty),* })? => $visit:ident ($($ann:tt)*))*) => {
        $( classify!(one $op $({ $($arg: $argty),* })? => $visit); )*
    };
    (one Call { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $($arg: $argty),*) -> Op { Op::Func(0x10, $($arg)*) }
    };
    (one ReturnCall { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $($arg: $argty),*) -> Op { Op::Func(0x12, $($arg)*) }
    };
    (one RefFunc { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $($arg: $argty),*) -> Op { Op::Func(0xd2, $($arg)*) }
    };
    (one GlobalGet { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $($arg: $argty),*) -> Op { Op::GlobalGet($($arg)*) }
    };
    (one Loop { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $(_: $argty),*) -> Op { Op::Loop }
    };
    (one Block { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $(_: $argty),*) -> Op { Op::Block }
    };
    (one If { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $(_: $argty),*) -> Op { Op::Block }
    };
    (one Try { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $(_: $argty),*) -> Op { Op::Block }
    };
    (one TryTable { $($arg:ident: $argty:ty),* } => $visit:ident) => {
        fn $visit(&mut self, $(_: $argty),*) -> Op { Op::Block }
    };
    (one $op:ident $({ $($arg:ident: $argty:ty),* })? => $visit:ident) => {
        #[inline]
        fn $visit(&mut self $($(, _: $argty)*)?) -> Op { Op::Other }
    };
}

impl<'a> wasmparser::VisitOperator<'a> for Classify {
    type Output = Op;
    fn simd_visitor(&mut self) -> Option<&mut dyn wasmparser::VisitSimdOperator<'a, Output = Self::Output>> {
        Some(self)
    }
    wasmparser::for_each_visit_operator!(classify);
}

impl<'a> wasmparser::VisitSimdOperator<'a> for Classify {
    wasmparser::for_each_visit_simd_operator!(classify);
}
