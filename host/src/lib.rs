//! The simulated world (WASI over virtual resources, scheduler, disk, network, faults). Arrives with the WASI-host issue; empty until then.
