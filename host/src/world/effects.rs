//! What fault kinds may do to the world (`fault::Effects`), and the one
//! place the phases are enforced for them: before faults start, inside a
//! quiet window, in the liveness phase, an effect is refused. Crashing,
//! pausing and resuming a node, cutting and healing the network, moving a
//! node's wall clock, acting on a node's disk are applied here; when and to whom is the kinds'
//! business.

use super::event::Event;
use super::fault::{Effects, Fault};
use super::slot::State;
use super::{End, World};
use crate::fs::Fs;
use crate::net::Clog;
use crate::node_id::NodeId;
use crate::vtime::{SimDuration, SimTime, go_duration, go_signed_duration};

impl Effects for World<'_> {
    fn now(&self) -> SimTime {
        World::now(self)
    }

    fn allowed(&self) -> bool {
        self.injector.allowed(World::now(self))
    }

    fn holding(&self) -> bool {
        self.injector.holding(World::now(self))
    }

    fn node_count(&self) -> usize {
        self.slots.len()
    }

    fn name(&self, id: NodeId) -> &str {
        self.slots[id].name()
    }

    fn node_of(&self, name: &str) -> Option<NodeId> {
        self.slots.position(|s| s.name() == name)
    }

    fn is_up_service(&self, id: NodeId) -> bool {
        let s = &self.slots[id];
        s.program.is_service() && matches!(s.state, State::Up { .. })
    }

    fn crash(&mut self, id: NodeId, downtime: SimDuration, fault: Fault) -> bool {
        if !self.allowed() || !self.is_up_service(id) {
            return false;
        }
        self.end_incarnation(id, End::Crash { fault: Box::new(fault), downtime, how: String::new() });
        true
    }

    fn partition(&mut self, groups: &[Vec<NodeId>], oneway: bool, fault: Fault) -> bool {
        if !self.allowed() || groups.len() < 2 {
            return false;
        }
        let now = World::now(self);
        {
            let mut net = self.net.borrow_mut();
            for (a, from) in groups.iter().enumerate() {
                for (b, to) in groups.iter().enumerate() {
                    // One way: only what the first group sends is cut.
                    if a != b && (!oneway || a == 0) {
                        for &x in from {
                            for &y in to {
                                net.block(x, y, now);
                            }
                        }
                    }
                }
            }
        }
        let line = format!("partition {} until {}", fault.target, fault.until.unwrap_or(World::now(self)));
        self.rec.emit(World::now(self), Event::Fault { fault, line: Some(line) });
        true
    }

    fn heal(&mut self) {
        self.net.borrow_mut().heal_all(World::now(self));
        self.rec.emit(World::now(self), Event::Heal);
    }

    fn paused(&self, id: NodeId) -> bool {
        self.slots[id].paused_until > World::now(self)
    }

    fn pause(&mut self, id: NodeId, fault: Fault) -> bool {
        let Some(until) = fault.until else { return false };
        if !self.allowed() || !self.is_up_service(id) {
            return false;
        }
        self.slots[id].paused_until = until;
        let line = format!("pause {} until {until}", self.slots[id].who(id));
        self.rec.emit(World::now(self), Event::Fault { fault, line: Some(line) });
        true
    }

    fn resume_all(&mut self) {
        let now = World::now(self);
        for id in self.slots.ids() {
            if self.slots[id].paused_until > now {
                self.slots[id].paused_until = SimTime::ZERO;
                let who = self.slots[id].who(id);
                self.rec.emit(World::now(self), Event::Resume(&who));
            }
        }
    }

    fn jump_clock(&mut self, id: NodeId, fault: Fault) -> bool {
        let Some(jump) = fault.amount else { return false };
        if !self.allowed() || !self.is_up_service(id) {
            return false;
        }
        let s = &mut self.slots[id];
        s.wall_offset_ns = s.wall_offset_ns.saturating_add(jump);
        let line = format!(
            "clock jump {} by {} (its wall clock is now off by {})",
            s.who(id),
            go_signed_duration(jump),
            go_signed_duration(s.wall_offset_ns)
        );
        self.rec.emit(World::now(self), Event::Fault { fault, line: Some(line) });
        true
    }

    fn skew_clock(&mut self, id: NodeId, fault: Fault) -> bool {
        let Some(offset) = fault.amount else { return false };
        if self.holding() {
            return false;
        }
        self.slots[id].wall_offset_ns = offset;
        let line =
            format!("clock skew {}: its wall clock is off by {}", self.slots[id].who(id), go_signed_duration(offset));
        self.rec.emit(World::now(self), Event::Fault { fault, line: Some(line) });
        true
    }

    fn reset_connections(&mut self, id: NodeId, fault: Fault) -> bool {
        if !self.allowed() || !self.is_up_service(id) {
            return false;
        }
        let reset = self.net.borrow_mut().reset(id, World::now(self));
        let line = format!("net reset {}: {reset} connections reset", self.slots[id].who(id));
        self.rec.emit(World::now(self), Event::Fault { fault, line: Some(line) });
        true
    }

    fn clog(&mut self, from: NodeId, to: NodeId, clog: Clog, fault: Fault) -> bool {
        if !self.allowed() || from == to {
            return false;
        }
        self.net.borrow_mut().clog(from, to, clog, World::now(self));
        let until = fault.until.unwrap_or(World::now(self));
        let line = format!("clog {} ({}) until {until}", fault.target, fault.kind.imp().detail(&fault));
        self.rec.emit(World::now(self), Event::Fault { fault, line: Some(line) });
        true
    }

    fn unclog(&mut self, from: NodeId, to: NodeId) {
        self.net.borrow_mut().unclog(from, to, World::now(self));
        let line = format!("clog {} -> {} ends", self.slots[from].name(), self.slots[to].name());
        self.rec.say(World::now(self), &line);
    }

    fn on_disk(&mut self, id: NodeId, fault: Option<Fault>, act: &mut dyn FnMut(&mut Fs) -> Option<String>) -> bool {
        let now = World::now(self);
        let Some(fault) = fault else {
            // Ending a condition: the disk may be with a node that is down.
            let Some(text) = self.slots[id].fs_mut().and_then(act) else { return false };
            let who = self.slots[id].who(id);
            self.rec.say(now, &format!("{who}: {text}"));
            return true;
        };
        if !self.allowed() || !self.is_up_service(id) {
            return false;
        }
        let Some(text) = act(&mut self.slots[id].node_mut().fs) else { return false };
        let line = format!("{} {}: {text}", fault.kind.name(), self.slots[id].who(id));
        self.rec.emit(now, Event::Fault { fault, line: Some(line) });
        true
    }

    fn slow_node(&mut self, id: NodeId, extra: SimDuration, fault: Option<Fault>) -> bool {
        let now = World::now(self);
        let Some(fault) = fault else {
            self.net.borrow_mut().set_slow(id, SimDuration::ZERO, World::now(self));
            let who = self.slots[id].who(id);
            self.rec.say(now, &format!("{who}'s network is back to normal"));
            return true;
        };
        if !self.allowed() || !self.is_up_service(id) {
            return false;
        }
        self.net.borrow_mut().set_slow(id, extra, World::now(self));
        let until = fault.until.unwrap_or(now);
        let line = format!("slow {}: +{} latency until {until}", self.slots[id].who(id), go_duration(extra.ns()));
        self.rec.emit(now, Event::Fault { fault, line: Some(line) });
        true
    }
}
