//! Rewriting the code section: the counter snippet at every function entry (and, with loops, as
//! the first instructions inside every `loop`), and the function index of every `call`,
//! `return_call` and `ref.func` to a defined function shifted past the hook.
//!
//! In Go modules, a function without Go's own stack check also gets the preemption entry check
//! (`entry`) right after the counter snippet.
//!
//! Every other byte range is copied verbatim, so bodies are neither validated nor re-encoded.
//! Telling operators apart is `classify`'s job; the other sections are `output`'s.

use wasmparser::FunctionBody;

use crate::classify::{Classify, Op};
use crate::encoding::write_u32;
use crate::entry::{self, Morestack};
use crate::error::Error;
use crate::input::{Input, Section, range};
use crate::plan::Plan;
use crate::shift::Shift;

/// The rewritten code section and what was instrumented in it.
pub(crate) struct RewrittenCode {
    /// The section content (body count, then sized bodies); `None` if the input has no code
    /// section.
    pub(crate) content: Option<Vec<u8>>,
    /// Function entries instrumented (= defined functions).
    pub(crate) entry_sites: u32,
    /// Loop heads instrumented.
    pub(crate) loop_sites: u32,
    /// Defined functions that got the preemption entry check, ascending (their label names move
    /// past one more `if`).
    pub(crate) checked: Vec<u32>,
    /// Per defined function, the label ordinals of its instrumented loops. Only when loops are
    /// instrumented and the name section has label names: nothing else needs them.
    pub(crate) loop_labels: Option<Vec<Vec<u32>>>,
}

/// Rewrites every body of the input's code section.
pub(crate) fn rewrite_code(
    wasm: &[u8],
    input: &Input<'_>,
    plan: &Plan,
    loops: bool,
    morestack: Option<Morestack>,
) -> Result<RewrittenCode, Error> {
    let code = Code {
        wasm,
        shift: plan.shift,
        loops,
        snippet: counter_snippet(plan.counter_global, plan.shift.hook),
        morestack,
    };
    let mut rewritten =
        RewrittenCode { content: None, entry_sites: 0, loop_sites: 0, checked: Vec::new(), loop_labels: None };
    let Some(bodies) = input.sections.iter().find_map(|s| match s {
        Section::Code(b) => Some(b),
        _ => None,
    }) else {
        return Ok(rewritten);
    };
    let track = input.label_names && loops;
    let mut labels = Vec::with_capacity(if track { bodies.len() } else { 0 });
    let mut content = Vec::with_capacity(
        bodies.iter().map(|b| (b.range().end - b.range().start) as usize + code.snippet.len() + 1).sum::<usize>() + 5,
    );
    let mut scratch = Vec::new();
    write_u32(&mut content, bodies.len() as u32);
    for (defined, body) in bodies.iter().enumerate() {
        let defined = defined as u32;
        scratch.clear();
        let mut l = Vec::new();
        // By name and type here; whether it already has Go's check is seen in the body.
        let candidate = morestack.is_some()
            && input.has_go_type(defined)
            && input.func_name(input.func_imports + defined).is_some_and(entry::eligible_name);
        let (loop_sites, checked) =
            code.body(body, &mut scratch, track.then_some(&mut l), candidate.then_some(defined))?;
        rewritten.loop_sites += loop_sites;
        if checked {
            rewritten.checked.push(defined);
        }
        if track {
            labels.push(l);
        }
        write_u32(&mut content, scratch.len() as u32);
        content.extend_from_slice(&scratch);
        rewritten.entry_sites += 1;
    }
    rewritten.content = Some(content);
    if track {
        rewritten.loop_labels = Some(labels);
    }
    Ok(rewritten)
}

/// Context for rewriting function bodies.
struct Code<'a> {
    wasm: &'a [u8],
    shift: Shift,
    loops: bool,
    /// The counter code: inserted at every function entry (and loop head).
    snippet: Vec<u8>,
    /// Go's morestack functions, when the module is a Go program and entry checks are wanted.
    morestack: Option<Morestack>,
}

fn counter_snippet(counter: u32, hook: u32) -> Vec<u8> {
    let mut s = Vec::with_capacity(24);
    s.push(0x23); // global.get
    write_u32(&mut s, counter);
    s.extend_from_slice(&[0x42, 0x01, 0x7d]); // i64.const 1; i64.sub
    s.push(0x24); // global.set
    write_u32(&mut s, counter);
    s.push(0x23); // global.get
    write_u32(&mut s, counter);
    s.extend_from_slice(&[0x42, 0x00, 0x57]); // i64.const 0; i64.le_s
    s.extend_from_slice(&[0x04, 0x40]); // if (empty block type)
    s.push(0x10); // call
    write_u32(&mut s, hook);
    s.push(0x0b); // end
    s
}

impl Code<'_> {
    /// Rewrites one body into `out` (without its size prefix). Returns the number of loops
    /// instrumented and whether the entry check went in. With `loop_labels`, records the label
    /// ordinal of every instrumented loop (for renumbering label names). `candidate` is the
    /// defined index of a function that gets the entry check unless it has Go's own.
    fn body(
        &self,
        body: &FunctionBody<'_>,
        out: &mut Vec<u8>,
        mut loop_labels: Option<&mut Vec<u32>>,
        candidate: Option<u32>,
    ) -> Result<(u32, bool), Error> {
        let wasm = self.wasm;
        let whole = range(body.range());
        let mut ops = body.get_operators_reader()?;
        let ops_start = ops.original_position() as usize;
        out.extend_from_slice(&wasm[whole.start..ops_start]); // locals, verbatim
        out.extend_from_slice(&self.snippet);
        let check_at = out.len();
        let (mut has_go_check, mut reads_ctxt) = (false, false);
        let mut copied = ops_start;
        let mut loops = 0u32;
        let mut label = 0u32; // ordinal of the next block-introducing instruction
        while !ops.eof() {
            let pos = ops.original_position() as usize;
            let (opcode, func) = match ops.visit_operator(&mut Classify)? {
                Op::Func(opcode, func) => (opcode, func),
                Op::Loop => {
                    if self.loops {
                        let end = ops.original_position() as usize;
                        out.extend_from_slice(&wasm[copied..end]);
                        out.extend_from_slice(&self.snippet);
                        copied = end;
                        loops += 1;
                        if let Some(labels) = loop_labels.as_deref_mut() {
                            labels.push(label);
                        }
                    }
                    label += 1;
                    continue;
                }
                Op::Block => {
                    label += 1;
                    continue;
                }
                Op::GlobalGet(g) => {
                    reads_ctxt |= entry::reads_ctxt(g);
                    continue;
                }
                Op::Other => continue,
            };
            if opcode == 0x10 && self.morestack.is_some_and(|m| m.is(func)) {
                has_go_check = true;
            }
            if func < self.shift.hook {
                continue; // an imported function: index unchanged, bytes copied later
            }
            out.extend_from_slice(&wasm[copied..pos]);
            out.push(opcode);
            write_u32(out, self.shift.func(func)?);
            copied = ops.original_position() as usize;
        }
        ops.finish()?;
        out.extend_from_slice(&wasm[copied..whole.end]);
        let checked = match (candidate, self.morestack) {
            (Some(defined), Some(m)) if !has_go_check => {
                let callee = if reads_ctxt { m.morestack } else { m.noctxt };
                let check = entry::check(defined, self.shift.func(callee)?);
                out.splice(check_at..check_at, check);
                true
            }
            _ => false,
        };
        Ok((loops, checked))
    }
}
