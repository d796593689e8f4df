//! The socket habits the proxy and the bridge share: every socket sends at
//! once, the caps on connections (at most so many at once, and from one
//! address) sit below the descriptor limit, a connection past them gets a
//! clear refusal, and what belongs to one connection is not forwarded.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// `stream`, sending at once: an SSE block must not wait for the peer's
/// delayed ACK (Nagle's algorithm held each chunked response ~40 ms). A
/// failure is said on stderr under `who`'s name.
pub fn no_delay(stream: TcpStream, who: &str) -> TcpStream {
    if let Err(e) = stream.set_nodelay(true) {
        eprintln!("{who}: TCP_NODELAY: {e}");
    }
    stream
}

/// A 503 saying `text`, then closed.
async fn refuse_with(mut stream: TcpStream, text: &str) {
    let head = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        text.len()
    );
    let _ = stream.write_all(format!("{head}{text}").as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// Whether the header field `name` (lower case) belongs to one connection,
/// not to the message, and so is not forwarded (RFC 9110 7.6.1).
pub fn hop_by_hop(name: &str) -> bool {
    matches!(name, "connection" | "keep-alive" | "transfer-encoding" | "te" | "trailer" | "upgrade")
        || name.starts_with("proxy-")
}

/// Descriptors kept from the limit for everything but client connections
/// and their upstream sockets: the runtime, the listeners, record and HAR
/// files, a stdio server's pipes, the live page's connections.
pub const RESERVED_DESCRIPTORS: u64 = 32;

/// The most connections the default cap allows, however high the descriptor
/// limit: each costs memory besides its descriptor.
pub const DEFAULT_CAP_CEILING: usize = 16384;

/// The cap without a descriptor limit to derive it from (not Unix).
const CAP_WITHOUT_LIMIT: usize = 1024;

/// The least of the default per-peer cap.
pub const PER_PEER_FLOOR: usize = 8;

/// The soft limit on open descriptors (`RLIMIT_NOFILE`), first raised to the
/// hard limit: the usual soft limit (1024) is far below the hard one, and a
/// server out of descriptors can neither accept nor refuse. `None` where
/// there is no such limit, or it cannot be read.
pub fn descriptor_limit() -> Option<u64> {
    #[cfg(unix)]
    {
        use rlimit::Resource;
        let (soft, hard) = Resource::NOFILE.get().ok()?;
        if soft >= hard {
            return Some(soft);
        }
        // An infinite hard limit is not a soft limit Linux takes (it is
        // bounded by fs.nr_open): its usual bound then.
        let target = if hard == rlimit::INFINITY { 1 << 20 } else { hard };
        match Resource::NOFILE.set(target, hard) {
            Ok(()) => Some(target),
            Err(_) => Some(soft),
        }
    }
    #[cfg(not(unix))]
    None
}

/// The connection cap a descriptor `limit` allows: half of what is left
/// once [`RESERVED_DESCRIPTORS`] are set aside (each client connection may
/// need an upstream socket too), at least 1.
pub fn cap_for_limit(limit: u64) -> usize {
    let half = limit.saturating_sub(RESERVED_DESCRIPTORS) / 2;
    usize::try_from(half).unwrap_or(usize::MAX).max(1)
}

/// The default connection cap: what the descriptor limit (raised first, see
/// [`descriptor_limit`]) allows, at most [`DEFAULT_CAP_CEILING`].
pub fn default_max_connections() -> usize {
    descriptor_limit().map_or(CAP_WITHOUT_LIMIT, |limit| cap_for_limit(limit).min(DEFAULT_CAP_CEILING))
}

/// The default per-peer cap under a connection cap of `connections`: a
/// quarter of it, at least [`PER_PEER_FLOOR`], never above it.
pub fn default_per_peer(connections: usize) -> usize {
    (connections / 4).max(PER_PEER_FLOOR).min(connections)
}

/// The caps a listener serves under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// Client connections served at once.
    pub connections: usize,
    /// Client connections served at once from one IP address.
    pub per_peer: usize,
}

impl Caps {
    /// The caps for a requested cap of `connections` and of `per_peer`
    /// (`None`: [`default_per_peer`]) under the descriptor `limit`: a cap
    /// above what the limit allows ([`cap_for_limit`]) is lowered to it, and
    /// the warning says so; the per-peer cap is at least 1 and at most the cap.
    pub fn fit(connections: usize, per_peer: Option<usize>, limit: Option<u64>) -> (Caps, Option<String>) {
        let allowed = limit.map_or(usize::MAX, cap_for_limit);
        let mut warning = None;
        let connections = if connections > allowed {
            let limit = limit.unwrap_or_default();
            warning = Some(format!(
                "--max-connections {connections} is more than {limit} open descriptors allow: {allowed} \
                 (raise the hard limit, `ulimit -Hn`, for more)"
            ));
            allowed
        } else {
            connections.max(1)
        };
        let per_peer = per_peer.unwrap_or_else(|| default_per_peer(connections)).clamp(1, connections);
        (Caps { connections, per_peer }, warning)
    }

    /// [`Caps::fit`] under this process's descriptor limit (raised to the
    /// hard one first), the warning said on stderr under `who`'s name.
    pub fn for_this_process(connections: usize, per_peer: Option<usize>, who: &str) -> Caps {
        let (caps, warning) = Caps::fit(connections, per_peer, descriptor_limit());
        if let Some(warning) = warning {
            eprintln!("{who}: {warning}");
        }
        caps
    }
}

/// Why [`Admission::admit`] refused a connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// The connection cap is reached.
    Busy,
    /// The peer's address holds its cap of connections.
    PeerBusy,
}

/// Who is served: at most [`Caps::connections`] connections at once, at
/// most [`Caps::per_peer`] from one IP address, so that one peer cannot take
/// every slot (review M2′).
#[derive(Debug)]
pub struct Admission {
    caps: Caps,
    slots: Arc<Semaphore>,
    peers: Mutex<HashMap<IpAddr, usize>>,
}

/// A connection's place: its slot under the cap and its count under its
/// peer's, both given back when it is dropped.
#[derive(Debug)]
pub struct Permit {
    _slot: OwnedSemaphorePermit,
    admission: Arc<Admission>,
    peer: IpAddr,
}

impl Admission {
    /// Room for `caps`.
    pub fn new(caps: Caps) -> Arc<Admission> {
        let slots = Arc::new(Semaphore::new(caps.connections));
        Arc::new(Admission { caps, slots, peers: Mutex::new(HashMap::new()) })
    }

    /// Its caps.
    pub fn caps(&self) -> Caps {
        self.caps
    }

    /// A place for a connection from `peer` (an IPv4 address mapped into
    /// IPv6 counts as the IPv4 one), or why there is none.
    pub fn admit(self: &Arc<Self>, peer: IpAddr) -> Result<Permit, Refused> {
        let peer = peer.to_canonical();
        let mut peers = self.peers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let held = peers.get(&peer).copied().unwrap_or(0);
        if held >= self.caps.per_peer {
            return Err(Refused::PeerBusy);
        }
        let slot = self.slots.clone().try_acquire_owned().map_err(|_| Refused::Busy)?;
        peers.insert(peer, held + 1);
        Ok(Permit { _slot: slot, admission: self.clone(), peer })
    }

    /// Connections held now from `peer`.
    pub fn held_by(&self, peer: IpAddr) -> usize {
        let peers = self.peers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        peers.get(&peer.to_canonical()).copied().unwrap_or(0)
    }

    /// Connections held now.
    pub fn held(&self) -> usize {
        self.caps.connections - self.slots.available_permits()
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        let mut peers = self.admission.peers.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(held) = peers.get_mut(&self.peer) {
            *held -= 1;
            if *held == 0 {
                peers.remove(&self.peer);
            }
        }
    }
}

/// A connection refused by [`Admission::admit`]: a clear 503 from `who`
/// saying which cap, then closed.
pub async fn refuse(stream: TcpStream, who: &str, why: Refused) {
    let text = match why {
        Refused::Busy => format!("{who}: too many connections\n"),
        Refused::PeerBusy => format!("{who}: too many connections from your address\n"),
    };
    refuse_with(stream, &text).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    /// The cap is half the descriptors left past the reserve; the default
    /// per-peer cap a quarter of it, at least 8, never above it.
    #[test]
    fn caps_follow_the_descriptor_limit() {
        assert_eq!(cap_for_limit(64), 16);
        assert_eq!(cap_for_limit(1024), 496);
        assert_eq!(cap_for_limit(10), 1);
        assert_eq!((default_per_peer(496), default_per_peer(16), default_per_peer(3)), (124, 8, 3));
        let (caps, warning) = Caps::fit(1024, None, Some(1024));
        assert_eq!(caps, Caps { connections: 496, per_peer: 124 });
        let warning = warning.unwrap();
        assert!(warning.contains("--max-connections 1024") && warning.contains(": 496"), "{warning}");
        assert_eq!(Caps::fit(100, Some(500), Some(1024)), (Caps { connections: 100, per_peer: 100 }, None));
        assert_eq!(Caps::fit(100, Some(0), None), (Caps { connections: 100, per_peer: 1 }, None));
        assert_eq!(Caps::fit(2, None, Some(64)).0, Caps { connections: 2, per_peer: 2 });
    }

    /// The limit is raised to the hard one (here from one below it).
    #[cfg(unix)]
    #[test]
    fn the_soft_descriptor_limit_is_raised_to_the_hard_one() {
        use rlimit::Resource;
        let (soft, hard) = Resource::NOFILE.get().unwrap();
        if hard != rlimit::INFINITY && hard > 256 {
            Resource::NOFILE.set(soft.min(hard - 1), hard).unwrap();
            assert_eq!(descriptor_limit(), Some(hard));
            assert_eq!(Resource::NOFILE.get().unwrap(), (hard, hard));
        }
        assert!(default_max_connections() >= 1);
    }

    /// One peer gets its cap and no more; another peer still gets in until
    /// the cap; a place given back is free again, for its peer too.
    #[test]
    fn one_peer_cannot_take_every_place() {
        let admission = Admission::new(Caps { connections: 5, per_peer: 3 });
        let (a, b, c) = (ip("10.0.0.1"), ip("10.0.0.2"), ip("10.0.0.3"));
        let mut held: Vec<Permit> = (0..3).map(|_| admission.admit(a).unwrap()).collect();
        assert_eq!(admission.admit(a).unwrap_err(), Refused::PeerBusy);
        // The same peer, as an IPv4-mapped IPv6 address.
        assert_eq!(admission.admit(ip("::ffff:10.0.0.1")).unwrap_err(), Refused::PeerBusy);
        held.push(admission.admit(b).unwrap());
        held.push(admission.admit(b).unwrap());
        assert_eq!(admission.admit(c).unwrap_err(), Refused::Busy);
        assert_eq!((admission.held(), admission.held_by(a), admission.held_by(b)), (5, 3, 2));
        held.remove(0);
        assert_eq!(admission.held_by(a), 2);
        held.push(admission.admit(a).unwrap());
        drop(held);
        assert_eq!((admission.held(), admission.held_by(a), admission.held_by(b)), (0, 0, 0));
        assert!(admission.peers.lock().unwrap().is_empty(), "no entry kept for a peer gone");
    }
}
