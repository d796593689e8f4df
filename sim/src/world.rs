//! The whole system in one event loop: clients, the balancer, the
//! instances and the store, on one simulated clock, every choice drawn from
//! the run's seed.
//!
//! Events are kept by (time, sequence number), so that two at the same
//! millisecond run in the order they were scheduled: the run is a function
//! of its [`Setup`] alone.

use crate::client::{Actions, OpRun, OpSpec, Way, HTTP_TIMEOUT_MS};
use crate::instance::{secrets, Env, Flavor, Instance, Push, Served, STATE_TTL};
use crate::net::{self, HttpRequest, HttpResponse, Part};
use crate::schedule::{FaultKind, Faults, Fired};
use crate::store::Store;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// Key generations a run can rotate through.
const KEY_GENERATIONS: u8 = 8;
/// A run that has not finished by then has an operation that never ends.
pub const DEADLINE_MS: u64 = 30 * 60 * 1000;

/// What a run is: its seed and shape, and which faults may fire.
#[derive(Clone, Debug)]
pub struct Setup {
    /// Everything random is drawn from it.
    pub seed: u64,
    /// Clients, each running its operations one after the other.
    pub clients: usize,
    /// Clients left out (by index; the others keep their names and operations).
    pub without: BTreeSet<usize>,
    /// Operations per client.
    pub ops_per_client: usize,
    /// Instances behind the balancer.
    pub instances: usize,
    /// The server the instances run.
    pub flavor: Flavor,
    /// Only these fault decisions may fire (`None`: any the seed draws).
    pub allowed: Option<BTreeSet<u64>>,
    /// How long sealed states live, in seconds.
    pub ttl: u32,
    /// Whether some operations hedge their rounds (`Config::hedge`; in the
    /// SEP ways, give up stalled exchanges: `CallConfig::stall_ms`).
    pub hedging: bool,
    /// Every host says its first request is harmless twice, the one-round
    /// tool's too (wrong: what shows that "no side effect twice" catches a
    /// host, or a client, that repeats a first request).
    pub vouch_all: bool,
    /// Whether some operations call over SEP-1858 and SEP-1335 (else those are MRTR).
    pub sep: bool,
    /// Whether some operations call in the legacy `2025-11-25` design (else those are MRTR).
    pub legacy: bool,
    /// Keep a readable trace.
    pub trace: bool,
}

impl Setup {
    /// The run `seed` in the shape the seed draws: 1–3 clients with 1–3
    /// operations each, 2–3 instances.
    pub fn new(seed: u64) -> Setup {
        let mut rng = fastrand::Rng::with_seed(seed ^ 0x5eed_5a9e);
        Setup {
            seed,
            clients: rng.usize(1..=3),
            without: BTreeSet::new(),
            ops_per_client: rng.usize(1..=3),
            instances: rng.usize(2..=3),
            ttl: [STATE_TTL, STATE_TTL, STATE_TTL, 10, 4][rng.usize(..5)],
            flavor: Flavor::Correct,
            allowed: None,
            hedging: false,
            vouch_all: false,
            sep: false,
            legacy: false,
            trace: false,
        }
    }
}

/// An operation as the run left it.
#[derive(Debug)]
pub struct Finished {
    /// The operation's client (`c0`, …).
    pub client: String,
    /// Its run.
    pub run: OpRun,
}

/// What a run produced, for the invariants.
#[derive(Debug)]
pub struct Report {
    /// The setup it ran.
    pub setup: Setup,
    /// Every operation, finished or not.
    pub ops: Vec<Finished>,
    /// The store as it ended.
    pub store: Store,
    /// The faults that fired.
    pub fired: Vec<Fired>,
    /// How many of each kind.
    pub counts: [u64; FaultKind::ALL.len()],
    /// A digest of every event handled: two runs with the same digest took the same path.
    pub digest: u64,
    /// The readable trace, when asked.
    pub trace: Vec<String>,
    /// Simulated ms at the end.
    pub end_ms: u64,
    /// Whether the event queue emptied before the deadline.
    pub quiescent: bool,
}

/// What happens at a point of simulated time.
#[derive(Debug)]
enum Ev {
    /// The client starts its next operation.
    Start { client: usize },
    /// A request reaches the balancer; `conn` is where its answer goes (`None`: a duplicate's copy).
    Arrive { conn: Option<u64>, req: Rc<HttpRequest> },
    /// A request reaches an instance.
    AtInstance { inst: usize, conn: Option<u64>, req: Rc<HttpRequest> },
    /// A part of a response, from `inst` in its life `life`.
    Deliver { conn: u64, inst: usize, life: u64, part: Part },
    /// The host gives up on an exchange.
    GiveUp { conn: u64 },
    /// The operation's own timer.
    Timer { client: usize, at: u64 },
    /// The user answers a question.
    Answer { client: usize, key: String },
    /// A crashed instance comes back, with the next key.
    Restart { inst: usize },
    /// A hung instance goes on with what queued.
    Resume { inst: usize },
    /// (Legacy) A round's wait on an instance may be over.
    Tick { inst: usize, at: u64 },
}

/// A client and its operations.
#[derive(Debug)]
struct Client {
    name: String,
    specs: Vec<OpSpec>,
    next: usize,
    current: Option<OpRun>,
    /// Times a timer event is queued for (any may be stale: the operation
    /// judges at each whether its time came).
    timers: BTreeSet<u64>,
}

/// Where a connection's response goes.
#[derive(Debug, Clone, Copy)]
struct Conn {
    client: usize,
    exchange: u64,
}

/// The simulated system.
struct World {
    setup: Setup,
    now: u64,
    seq: u64,
    queue: BTreeMap<(u64, u64), Ev>,
    rng: fastrand::Rng,
    faults: Faults,
    clients: Vec<Client>,
    instances: Vec<Instance>,
    /// What queued at each instance while it hung.
    held: Vec<Vec<(Option<u64>, Rc<HttpRequest>)>>,
    secrets: Vec<[u8; 32]>,
    generation: u8,
    store: Store,
    conns: BTreeMap<u64, Conn>,
    next_conn: u64,
    /// (Legacy) When the last part sent on an open stream arrives: later text comes after it.
    conn_at: BTreeMap<u64, u64>,
    /// (Legacy) Round deadlines with an event queued, by instance.
    ticks: BTreeSet<(usize, u64)>,
    finished: Vec<Finished>,
    digest: u64,
    trace: Vec<String>,
}

/// Runs `setup` to its end.
pub fn run(setup: Setup) -> Report {
    let mut world = World::new(setup);
    for inst in 0..world.instances.len() {
        world.set_clock(inst);
    }
    for client in 0..world.clients.len() {
        let at = world.rng.u64(0..50);
        world.at(at, Ev::Start { client });
    }
    while let Some(((at, _), ev)) = world.queue.pop_first() {
        if at > DEADLINE_MS {
            world.queue.insert((at, 0), ev);
            break;
        }
        world.now = at;
        world.handle(ev);
    }
    world.report()
}

impl World {
    fn new(setup: Setup) -> World {
        let mut rng = fastrand::Rng::with_seed(setup.seed);
        let faults = match &setup.allowed {
            Some(allowed) => Faults::with_allowed(setup.seed, allowed.clone()),
            None => Faults::new(setup.seed),
        };
        let secrets = secrets(&mut rng, KEY_GENERATIONS);
        let instances: Vec<Instance> = (0..setup.instances).map(|i| Instance::new(i, &secrets, 1)).collect();
        let clients = (0..setup.clients).filter(|c| !setup.without.contains(c)).map(|c| client(&setup, c)).collect();
        World {
            held: vec![Vec::new(); instances.len()],
            now: 0,
            seq: 0,
            queue: BTreeMap::new(),
            rng,
            faults,
            clients,
            instances,
            secrets,
            generation: 1,
            store: Store::default(),
            conns: BTreeMap::new(),
            next_conn: 1,
            conn_at: BTreeMap::new(),
            ticks: BTreeSet::new(),
            finished: Vec::new(),
            digest: 0xcbf2_9ce4_8422_2325,
            trace: Vec::new(),
            setup,
        }
    }

    /// Schedules `ev` `after` ms from now.
    fn at(&mut self, after: u64, ev: Ev) {
        self.seq += 1;
        self.queue.insert((self.now + after, self.seq), ev);
    }

    /// Folds an event into the digest, and into the trace when kept.
    fn note(&mut self, code: u64, a: u64, text: impl FnOnce() -> String) {
        for word in [self.now, code, a] {
            self.digest = (self.digest ^ word).wrapping_mul(0x0100_0000_01b3);
        }
        if self.setup.trace {
            let line = format!("{:>8}ms {}", self.now, text());
            self.trace.push(line);
        }
    }

    fn handle(&mut self, ev: Ev) {
        match ev {
            Ev::Start { client } => self.start(client),
            Ev::Arrive { conn, req } => self.arrive(conn, req),
            Ev::AtInstance { inst, conn, req } => self.at_instance(inst, conn, req),
            Ev::Deliver { conn, inst, life, part } => self.deliver(conn, inst, life, part),
            Ev::GiveUp { conn } => self.give_up(conn),
            Ev::Timer { client, at } => self.timer(client, at),
            Ev::Answer { client, key } => self.answer(client, key),
            Ev::Restart { inst } => self.restart(inst),
            Ev::Resume { inst } => self.resume(inst),
            Ev::Tick { inst, at } => self.tick(inst, at),
        }
    }

    fn start(&mut self, client: usize) {
        let c = &mut self.clients[client];
        let Some(spec) = c.specs.get(c.next).cloned() else { return };
        c.next += 1;
        let name = c.name.clone();
        self.note(1, client as u64, || format!("{name} starts {} ({} rounds)", spec.name, spec.rounds));
        let mut actions = Actions::default();
        match OpRun::start(spec.clone(), &name, self.now, &mut actions) {
            Ok(run) => self.clients[client].current = Some(run),
            Err(e) => panic!("the operation {} did not start: {e}", spec.name),
        }
        self.apply(client, actions);
    }

    /// Does what the host asked, then retires a finished operation.
    fn apply(&mut self, client: usize, actions: Actions) {
        for seen in &actions.seen {
            self.note(16, client as u64, || format!("c{client} event: {seen}"));
        }
        for (exchange, req) in actions.sends {
            self.send(client, exchange, req);
        }
        for key in actions.answers {
            let think = self.rng.u64(0..=50);
            self.at(think, Ev::Answer { client, key });
        }
        for exchange in actions.cut {
            self.cut(client, exchange);
        }
        // Every time the operation names gets its event: a later input may
        // name an earlier time, and a stale event is harmless.
        if let Some(at) = actions.timer.filter(|at| self.clients[client].timers.insert(*at)) {
            let after = at.saturating_sub(self.now);
            self.at(after, Ev::Timer { client, at });
        }
        if self.clients[client].current.as_ref().is_some_and(OpRun::is_over) {
            self.retire(client);
        }
    }

    fn retire(&mut self, client: usize) {
        let c = &mut self.clients[client];
        let Some(run) = c.current.take() else { return };
        c.timers.clear();
        let name = c.name.clone();
        self.note(2, client as u64, || format!("{name} finished {}: {:?}", run.spec.name, run.outcomes));
        self.finished.push(Finished { client: name, run });
        let think = self.rng.u64(0..=100);
        self.at(think, Ev::Start { client });
    }

    /// A request leaves a client: maybe lost, held back or doubled on its way.
    fn send(&mut self, client: usize, exchange: u64, req: HttpRequest) {
        let conn = self.next_conn;
        self.next_conn += 1;
        self.conns.insert(conn, Conn { client, exchange });
        self.at(HTTP_TIMEOUT_MS, Ev::GiveUp { conn });
        let target = format!("{} exchange {exchange} ({})", self.clients[client].name, req.method);
        self.note(3, conn, || format!("send conn {conn}: {target} {}", req.body.as_deref().unwrap_or("")));
        let req = Rc::new(req);
        let now = self.now;
        if self.faults.roll(FaultKind::DropRequest, now, || target.clone()) {
            return;
        }
        let mut delay = net::latency(&mut self.rng);
        if self.faults.roll(FaultKind::DelayRequest, now, || target.clone()) {
            delay += net::long_delay(&mut self.rng);
        }
        self.at(delay, Ev::Arrive { conn: Some(conn), req: req.clone() });
        // A retrying proxy repeats only what may run twice: never a request that carries nothing a server
        // could tell a copy of it by (a first request), which HTTP forbids it to repeat (RFC 9110 §9.2.2)
        // and MRTR gives no guard against (docs/transports.md, "Sending a request twice").
        let repeatable = || !is_first_request(req.body.as_deref());
        if self.faults.roll_if(FaultKind::DuplicateRequest, now, || target.clone(), repeatable) {
            let again = net::latency(&mut self.rng) + self.rng.u64(0..=1000);
            self.at(again, Ev::Arrive { conn: None, req });
        }
    }

    /// The balancer: any live instance, or 502 when none is.
    fn arrive(&mut self, conn: Option<u64>, req: Rc<HttpRequest>) {
        let now = self.now;
        let live: Vec<usize> = (0..self.instances.len()).filter(|i| self.instances[*i].is_up(now)).collect();
        if live.is_empty() {
            self.note(4, conn.unwrap_or(0), || "balancer: no instance alive, 502".into());
            let mut bad = HttpResponse::empty(502);
            bad.headers.push(("retry-after".into(), "1".into()));
            return self.respond(conn, usize::MAX, &bad);
        }
        let inst = live[self.rng.usize(..live.len())];
        let hop = self.rng.u64(0..=2);
        self.at(hop, Ev::AtInstance { inst, conn, req });
    }

    fn at_instance(&mut self, inst: usize, conn: Option<u64>, req: Rc<HttpRequest>) {
        let now = self.now;
        if !self.instances[inst].is_up(now) {
            return self.reset(conn);
        }
        let name = self.instances[inst].name.clone();
        if self.instances[inst].hung_until <= now && self.faults.roll(FaultKind::Hang, now, || name.clone()) {
            let hang = self.rng.u64(500..=6000);
            self.instances[inst].hung_until = now + hang;
            self.note(5, inst as u64, || format!("{name} hangs for {hang}ms"));
            self.at(hang, Ev::Resume { inst });
        }
        if self.instances[inst].hung_until > now {
            self.held[inst].push((conn, req));
            return;
        }
        self.serve(inst, conn, &req);
    }

    fn serve(&mut self, inst: usize, conn: Option<u64>, req: &HttpRequest) {
        let mut env = Env {
            store: &mut self.store,
            faults: &mut self.faults,
            rng: &mut self.rng,
            now: self.now,
            flavor: self.setup.flavor,
            conn,
        };
        let served = self.instances[inst].serve(req, &mut env);
        let name = self.instances[inst].name.clone();
        match served {
            Served::Reply(response) => self.reply(inst, conn, &response, false),
            Served::Open(response) => self.reply(inst, conn, &response, true),
            Served::Push { reply, pushes } => {
                self.reply(inst, conn, &reply, false);
                for push in pushes {
                    self.push(inst, push);
                }
            }
            Served::Crashed(kind) => {
                self.note(7, inst as u64, || format!("{name} crashes ({})", kind.name()));
                self.reset(conn);
                self.crash(inst);
            }
        }
        self.schedule_tick(inst);
    }

    /// Sends an instance's response back after its work (an `open` one stays open).
    fn reply(&mut self, inst: usize, conn: Option<u64>, response: &HttpResponse, open: bool) {
        let name = self.instances[inst].name.clone();
        let body = String::from_utf8_lossy(&response.body).into_owned();
        self.note(6, conn.unwrap_or(0), || format!("{name} answers conn {conn:?}: {} {body}", response.status));
        let work = self.rng.u64(1..=5);
        self.respond_after(conn, inst, response, work, open);
    }

    /// (Legacy) More text on a stream the instance holds, after what it sent before.
    fn push(&mut self, inst: usize, push: crate::instance::Push) {
        let Push { conn, text, end } = push;
        let name = self.instances[inst].name.clone();
        self.note(18, conn, || format!("{name} writes on conn {conn}: {text}"));
        let life = self.instances[inst].incarnation;
        let after = self.conn_at.get(&conn).copied().unwrap_or(self.now);
        if after == u64::MAX {
            return;
        }
        let mut at = after.max(self.now) + net::latency(&mut self.rng);
        let mut parts = net::chunks(text.as_bytes(), &mut self.rng, &mut at);
        if end {
            parts.push((at, Part::End));
        }
        self.conn_at.insert(conn, at);
        for (when, part) in parts {
            self.at(when - self.now, Ev::Deliver { conn, inst, life, part });
        }
    }

    /// (Legacy) The instance's next round deadline gets its event.
    fn schedule_tick(&mut self, inst: usize) {
        if let Some(at) = self.instances[inst].legacy_next_tick() {
            if self.ticks.insert((inst, at)) {
                self.at(at.saturating_sub(self.now), Ev::Tick { inst, at });
            }
        }
    }

    fn tick(&mut self, inst: usize, at: u64) {
        self.ticks.remove(&(inst, at));
        if !self.instances[inst].is_up(self.now) {
            return;
        }
        for push in self.instances[inst].legacy_tick(self.now) {
            self.push(inst, push);
        }
        self.schedule_tick(inst);
    }

    /// Sends `response` back on `conn` (nowhere for a duplicate's copy).
    fn respond(&mut self, conn: Option<u64>, inst: usize, response: &HttpResponse) {
        self.respond_after(conn, inst, response, 0, false);
    }

    fn respond_after(&mut self, conn: Option<u64>, inst: usize, response: &HttpResponse, after: u64, open: bool) {
        let Some(conn) = conn else { return };
        let target = format!("response on conn {conn}");
        let parts = net::deliver(response, &mut self.rng, &mut self.faults, self.now, &target, open);
        let life = self.instances.get(inst).map_or(0, |i| i.incarnation);
        // An open stream whose head never arrives is a broken connection: nothing more comes on it.
        let mut last = u64::MAX;
        for (delay, part) in parts {
            last = self.now + after + delay;
            self.at(after + delay, Ev::Deliver { conn, inst, life, part });
        }
        if open {
            self.conn_at.insert(conn, last);
        }
    }

    /// The connection closes with no response (refused, or its instance died).
    fn reset(&mut self, conn: Option<u64>) {
        if let Some(conn) = conn {
            let delay = net::latency(&mut self.rng);
            self.at(delay, Ev::Deliver { conn, inst: usize::MAX, life: 0, part: Part::End });
        }
    }

    /// The instance dies: what queued at it and what it was sending is cut.
    fn crash(&mut self, inst: usize) {
        let down = self.rng.u64(300..=3000);
        let i = &mut self.instances[inst];
        i.incarnation += 1;
        i.down_until = self.now + down;
        i.hung_until = 0;
        for (conn, _) in std::mem::take(&mut self.held[inst]) {
            self.reset(conn);
        }
        for conn in self.instances[inst].drop_streams() {
            self.reset(Some(conn));
        }
        self.at(down, Ev::Restart { inst });
    }

    /// An instance's clock and state lifetime as it starts: maybe skewed (a fault).
    fn set_clock(&mut self, inst: usize) {
        let name = self.instances[inst].name.clone();
        let now = self.now;
        let skew =
            if self.faults.roll(FaultKind::ClockSkew, now, || name.clone()) { self.rng.i64(-5000..=5000) } else { 0 };
        let i = &mut self.instances[inst];
        (i.skew_ms, i.ttl) = (skew, self.setup.ttl);
        if skew != 0 {
            self.note(17, inst as u64, || format!("{name}'s clock is {skew} ms off"));
        }
    }

    fn restart(&mut self, inst: usize) {
        self.generation = (self.generation + 1).min(KEY_GENERATIONS);
        let generation = self.generation;
        self.instances[inst].rotate(&self.secrets, generation);
        self.set_clock(inst);
        let name = self.instances[inst].name.clone();
        self.note(8, inst as u64, || format!("{name} restarts sealing with key {generation}"));
    }

    fn resume(&mut self, inst: usize) {
        if self.instances[inst].hung_until > self.now {
            return;
        }
        let name = self.instances[inst].name.clone();
        self.note(9, inst as u64, || format!("{name} resumes"));
        for (conn, req) in std::mem::take(&mut self.held[inst]) {
            self.serve(inst, conn, &req);
        }
    }

    fn deliver(&mut self, conn: u64, inst: usize, life: u64, part: Part) {
        let Some(&Conn { client, exchange }) = self.conns.get(&conn) else { return };
        // What an instance sent before it died is cut where it stood.
        let died = self.instances.get(inst).is_some_and(|i| i.incarnation != life);
        let part = if died { Part::End } else { part };
        if matches!(part, Part::End) {
            self.conns.remove(&conn);
        }
        if self.host_dies(client) {
            return;
        }
        self.note(10, conn, || format!("conn {conn} gets {}", describe(&part)));
        self.with_run(client, |run, now, actions| run.on_part(exchange, part, now, actions));
    }

    /// The host closes the connection of `exchange`: its answer no longer matters.
    fn cut(&mut self, client: usize, exchange: u64) {
        let conn = self.conns.iter().find(|(_, c)| c.client == client && c.exchange == exchange).map(|(n, _)| *n);
        let Some(conn) = conn else { return };
        self.conns.remove(&conn);
        self.note(15, conn, || format!("conn {conn}: the host cuts it (abandoned)"));
        self.with_run(client, |run, now, actions| run.end(exchange, now, actions));
    }

    fn give_up(&mut self, conn: u64) {
        let Some(Conn { client, exchange }) = self.conns.remove(&conn) else { return };
        self.note(11, conn, || format!("conn {conn}: the host gives up"));
        self.with_run(client, |run, now, actions| run.end(exchange, now, actions));
    }

    fn timer(&mut self, client: usize, at: u64) {
        if !self.clients[client].timers.remove(&at) {
            return;
        }
        if self.host_dies(client) {
            return;
        }
        self.note(12, client as u64, || format!("c{client} timer"));
        self.with_run(client, |run, now, actions| run.on_timer(now, actions));
    }

    fn answer(&mut self, client: usize, key: String) {
        if self.host_dies(client) {
            return;
        }
        self.note(13, client as u64, || format!("c{client} answers {key}"));
        self.with_run(client, |run, now, actions| run.on_answer(&key, now, actions));
    }

    /// Hands an input to the client's current operation, then does what it asks.
    fn with_run(&mut self, client: usize, input: impl FnOnce(&mut OpRun, u64, &mut Actions)) {
        let mut actions = Actions::default();
        let Some(run) = self.clients[client].current.as_mut() else { return };
        input(run, self.now, &mut actions);
        self.apply(client, actions);
    }

    /// Whether the client's host dies at this input (a fault): its
    /// connections are gone, and its operation comes back from a snapshot.
    fn host_dies(&mut self, client: usize) -> bool {
        let Some(run) = self.clients[client].current.as_ref() else { return false };
        let name = format!("{} running {}", self.clients[client].name, run.spec.name);
        let now = self.now;
        if !self.faults.roll_if(FaultKind::ClientRestart, now, || name.clone(), || run.can_restart(now)) {
            return false;
        }
        self.note(14, client as u64, || format!("{name}: the host restarts from a snapshot"));
        self.conns.retain(|_, c| c.client != client);
        self.with_run(client, |run, now, actions| {
            run.restart(now, actions);
        });
        true
    }

    fn report(mut self) -> Report {
        let quiescent = self.queue.is_empty();
        for c in &mut self.clients {
            if let Some(run) = c.current.take() {
                self.finished.push(Finished { client: c.name.clone(), run });
            }
        }
        Report {
            counts: self.faults.counts(),
            fired: self.faults.fired().to_vec(),
            ops: self.finished,
            store: self.store,
            digest: self.digest,
            trace: self.trace,
            end_ms: self.now,
            quiescent,
            setup: self.setup,
        }
    }
}

/// Whether `body` is a JSON-RPC request that is not harmless twice
/// ([`mrtr::client::repeat::is_repeatable`]): what no proxy may repeat.
fn is_first_request(body: Option<&str>) -> bool {
    let Some(Ok(message)) = body.map(serde_json::from_str::<serde_json::Value>) else { return false };
    message.get("method").is_some()
        && message.get("id").is_some()
        && !mrtr::client::repeat::is_repeatable(&message, false)
}

/// Client `c` of the run and its operations (drawn from their own stream,
/// so that a run with fewer clients keeps the others' operations).
fn client(setup: &Setup, c: usize) -> Client {
    let mut rng = fastrand::Rng::with_seed(setup.seed.wrapping_mul(31).wrapping_add(c as u64 + 1));
    // The one-round tool, from a stream of its own: the other draws stay those of earlier seeds.
    let mut once = fastrand::Rng::with_seed(setup.seed.wrapping_mul(37).wrapping_add(c as u64 + 0x0ace));
    let specs = (0..setup.ops_per_client)
        .map(|o| OpSpec {
            name: format!("c{c}o{o}"),
            rounds: rng.u64(1..=3) * u64::from(once.u8(..4) != 0),
            idempotent: false,
            resends: [2, 2, 1, 3][rng.usize(..4)],
            buffered: rng.u8(..4) != 0,
            way: match [Way::Mrtr, Way::Mrtr, Way::Legacy, Way::Tasks, Way::Sep1858, Way::Sep1335][rng.usize(..6)] {
                Way::Sep1858 | Way::Sep1335 if !setup.sep => Way::Mrtr,
                Way::Legacy if !setup.legacy => Way::Mrtr,
                way => way,
            },
            hedge: (rng.u8(..3) == 0).then(|| (rng.u64(200..=1500), rng.u32(1..=2))).filter(|_| setup.hedging),
        })
        .map(|mut spec| {
            // `plan` asks before any effect: its hosts vouch for its first request. Not the one-round tool's.
            spec.idempotent = spec.rounds > 0 || setup.vouch_all;
            spec
        })
        .collect();
    Client { name: format!("c{c}"), specs, next: 0, current: None, timers: BTreeSet::new() }
}

fn describe(part: &Part) -> String {
    match part {
        Part::Head(status, _) => format!("head {status}"),
        Part::Body(bytes) => format!("{} bytes", bytes.len()),
        Part::End => "end".into(),
    }
}
