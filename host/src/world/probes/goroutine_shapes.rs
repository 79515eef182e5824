//! Each Go node's goroutine switches over all its incarnations
//! (`goroutines.rs`): `seedfall test -novelty` counts distinct shapes.

use crate::goroutines::NodeShape;
use crate::node::Node;
use crate::world::event::Who;
use crate::world::probe::{Probe, Probes, View};
use seedfall_engine::Instance;

/// The probe: per Go node, in `RunSpec::programs` order, its shape.
#[derive(Default)]
pub struct GoroutineShapes(Vec<(usize, NodeShape)>);

impl GoroutineShapes {
    /// The shapes `probes`' `GoroutineShapes` saw (none when it is not installed).
    pub fn of(probes: &Probes) -> impl Iterator<Item = &NodeShape> {
        probes.get::<GoroutineShapes>().into_iter().flat_map(|p| p.0.iter().map(|(_, s)| s))
    }
}

impl Probe for GoroutineShapes {
    fn begin(&mut self, world: &View) {
        let programs = world.spec().programs.iter().enumerate();
        self.0 = programs.filter(|(_, p)| p.go_offsets.is_some()).map(|(i, p)| (i, NodeShape::new(&p.name))).collect();
    }

    fn incarnation_ended(&mut self, _world: &View, who: &Who, instance: &Instance<Node>) {
        let shape = self.0.iter_mut().find(|(i, _)| *i == who.id.index());
        if let (Some((_, shape)), Some(seen)) = (shape, &instance.data().goroutines) {
            shape.absorb(seen);
        }
    }
}
