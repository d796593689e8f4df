// Unit tests of the Kotlin binding: the exception hierarchy (one class per
// area, every rule of the core's table in its area's class, `.rule`, `.code`,
// `.detail`), panics, the client machine, the key ring (each attack of
// security issue #13: no default anonymous subject, no implicit {} params, a
// test-only nonce seal, replay, deployment labels, the seal budget, rotation
// under concurrent opens), the checker, and the transports (the event-stream
// decoder and encoder, the call over HTTP, the server side, HTTP entries under
// a transport; bytes that are not UTF-8, a 1000-link Link header).
// `registerTests()` fills `tests`, name to body; the JVM package's JUnit runs
// each as a dynamic test (bindings-jvm, KotlinBindingTest: `scripts/test jvm`).
package mrtr.tests

import com.google.gson.JsonParser
import mrtr.Binding
import mrtr.Checker
import mrtr.Client
import mrtr.ClientEvent
import mrtr.ErrorArea
import mrtr.HttpCall
import mrtr.HttpRequest
import mrtr.Operation
import mrtr.OperationEvent
import mrtr.HttpCallEvent
import mrtr.Incoming
import mrtr.InternalException
import mrtr.KeyRing
import mrtr.ServerStream
import mrtr.SseDecoder
import mrtr.SseEvent
import mrtr.MessageKind
import mrtr.MrtrException
import mrtr.Side
import mrtr.ReplayGuard
import mrtr.bindingForRequest
import mrtr.bindingFromJson
import mrtr.inspect
import mrtr.check
import mrtr.classify
import mrtr.paramsDigest
import mrtr.protocols
import mrtr.readHttpRequest
import mrtr.respond
import mrtr.resume
import mrtr.retry
import mrtr.rules
import mrtr.sseEncode
import mrtr.streamUrl
import mrtr.taskTransition
import mrtr.taskUpdate
import mrtr.ToolBridge
import mrtr.questionElicit
import mrtr.questionSample
import mrtr.requireCapabilities
import mrtr.errorResponse
import mrtr.conformance.ruleId
import mrtr.testOnlyError
import mrtr.testOnlyPanic
import mrtr.unassociatedReply

const val META = """{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"""
const val CALL = """{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"NYC"},"_meta":$META}}"""
const val ASK = """{"login":{"method":"elicitation/create","params":{"message":"GitHub user?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}"""
const val ANSWER = """{"login":{"action":"accept","content":{"name":"octocat"}}}"""
const val P = "2026-07-28"
const val TOOL_CALL = """{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"deploy","arguments":{}}}"""
const val CONFIG_1335 = """{"mode":"sep-1335","url":"https://example.com/mcp","protocol":"2025-11-25"}"""
const val ELICIT = """{"jsonrpc":"2.0","id":"e1","method":"elicitation/create","params":{"message":"Env?","requestedSchema":{"type":"object","properties":{}}}}"""
val HTTP_ENTRIES = listOf(
    """{"from":"client","http":{"exchange":"e1","method":"POST","url":"https://mcp.example.com/mcp","headers":{"content-type":"application/json"},"body":$TOOL_CALL}}""",
    """{"from":"server","http":{"exchange":"e1","status":200,"headers":{"content-type":"text/event-stream"},"events":[{"event":"buffer_input","id":"2"},{"id":"3","data":$ELICIT},{"event":"input_required","id":"4"}],"end":true}}""",
    // The buffered answers without Last-Event-ID: sse-last-event-id-missing at index 2 under sep-1858.
    """{"from":"client","http":{"exchange":"e2","method":"POST","url":"https://mcp.example.com/mcp","headers":{"content-type":"application/json"},"body":[{"jsonrpc":"2.0","id":"e1","result":{"action":"accept"}}]}}""",
    """{"from":"server","http":{"exchange":"e2","status":202,"headers":{},"end":true}}""",
)

/** Every event the call has queued. */
fun events(call: HttpCall): List<HttpCallEvent> = generateSequence { call.pollEvent() }.toList()

class Failed(message: String) : Exception(message)

fun check(cond: Boolean, what: () -> String) {
    if (!cond) throw Failed(what())
}

fun <T> eq(actual: T, expected: T) = check(actual == expected) { "expected $expected, got $actual" }

/** Runs `body`, which must throw an `E`; returns it. */
inline fun <reified E : Throwable> raises(body: () -> Unit): E {
    try {
        body()
    } catch (e: Throwable) {
        if (e is E) return e
        throw Failed("expected ${E::class.simpleName}, got $e")
    }
    throw Failed("expected ${E::class.simpleName}, nothing was thrown")
}

val tests = linkedMapOf<String, () -> Unit>()
fun test(name: String, body: () -> Unit) { tests[name] = body }

fun json(text: String) = JsonParser.parseString(text).asJsonObject

/** Answers the operation's request `sent` with the JSON `body`, whole. */
fun respond(op: Operation, sent: HttpRequest, body: String, now: Long) {
    op.handleHead(sent.exchange, 200, mapOf("content-type" to "application/json"), now)
    op.handleBody(sent.exchange, body.toByteArray(), now)
    op.handleEnd(sent.exchange, now)
}

/** 32 uniformly random secret bytes, as a deployment's key is. */
fun secret() = ByteArray(32).also { java.security.SecureRandom().nextBytes(it) }

/** A tools/call binding of `t` with arguments {"a": 1}. */
fun binding(subject: String? = "alice", anonymous: Boolean = false) =
    Binding(subject, anonymous, P, "tools/call", "t", paramsDigest("""{"name":"t","arguments":{"a":1}}"""))

/** A replay guard in memory (the callback interface): first use wins. */
class MemoryGuard : ReplayGuard {
    val used = mutableMapOf<String, Long>()
    override fun firstUse(stateId: String, expiry: Long): Boolean = used.putIfAbsent(stateId, expiry) == null
}

/** A guard whose store fails. */
class Throwing(private val error: Throwable) : ReplayGuard {
    override fun firstUse(stateId: String, expiry: Long): Boolean = throw error
}

/** Fills [tests] with every test of the binding. */
fun registerTests() {
    test("protocol errors are MrtrException.Protocol with rule and code") {
        val e = raises<MrtrException.Protocol> { classify("{\"jsonrpc\":", P) }
        eq(e.rule, "jsonrpc-parse-error"); eq(e.code, -32700)
        check(e.detail.isNotEmpty()) { "no detail" }
        check(e.message!!.contains("rule=jsonrpc-parse-error")) { "message: ${e.message}" }
        val unknown = raises<MrtrException.Protocol> { classify("{}", "1999-01-01") }
        eq(unknown.rule, "jsonrpc-invalid")
        val dup = raises<MrtrException.Protocol> { retry("""{"id":1,"id":2}""", "{}", "{}", "2", P) }
        eq(dup.rule, "jsonrpc-invalid")
        val list = raises<MrtrException.Protocol> { respond("""{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":$META}}""", ASK, null, P) }
        eq(list.rule, "input-required-method-not-allowed"); eq(list.code, null)
    }
    test("retry errors are MrtrException.Retry") {
        val answer = respond(CALL, ASK, "\"s1\"", P)
        val e = raises<MrtrException.Retry> { retry(CALL, answer, ANSWER, "1", P) }
        eq(e.rule, "retry-id-reused")
        eq(raises<MrtrException.Retry> { retry(CALL, answer, "{}", "2", P) }.rule, "retry-missing-input-response")
        val bad = raises<MrtrException.Retry> { retry(CALL, answer, """{"login":{"action":"maybe"}}""", "2", P) }
        eq(bad.rule, "retry-input-response-invalid"); eq(bad.code, -32602)
    }
    test("state errors are MrtrException.State") {
        val ring = KeyRing(1, "aes-256-gcm", secret())
        val b = bindingForRequest(CALL, "alice", false, P)
        val e = raises<MrtrException.State> { ring.open("!!", b, 1000, null) }
        eq(e.rule, "state-malformed"); eq(e.code, -32602)
        val token = ring.seal(b, 1000, 60, "hello".toByteArray())
        eq(String(ring.open(token, b, 1059, null).payload), "hello")
        eq(raises<MrtrException.State> { ring.open(token, b, 1060, null) }.rule, "state-expired")
        eq(raises<MrtrException.State> { ring.open(token, b.copy(subject = "bob"), 1001, null) }.rule, "state-wrong-subject")
        ring.close()
    }
    test("task errors are MrtrException.Task") {
        eq(taskTransition("working", "completed"), "completed")
        eq(raises<MrtrException.Task> { taskTransition("completed", "working") }.rule, "task-transition-invalid")
        eq(raises<MrtrException.Task> { taskTransition("Working", "completed") }.rule, "task-status-invalid")
        val get = """{"jsonrpc":"2.0","id":5,"method":"tasks/get","params":{"taskId":"t1"}}"""
        val shown = """{"jsonrpc":"2.0","id":5,"result":{"resultType":"complete","taskId":"t1","status":"input_required"}}"""
        eq(raises<MrtrException.Task> { taskUpdate(get, shown, ANSWER, "6") }.rule, "task-input-requests-missing")
    }
    test("association rules are their own area") {
        val areas = rules().associate { it.name to it.area }
        eq(areas["server-request-on-stream"], ErrorArea.ASSOCIATION)
        eq(areas["server-request-unassociated"], ErrorArea.ASSOCIATION)
        eq(areas["state-tampered"], ErrorArea.STATE)
        check(rules().size >= 40) { "rules: ${rules().size}" }
        eq(protocols().first(), "2026-07-28")
        val transcript = """[{"from":"client","message":$CALL},{"from":"server","message":{"jsonrpc":"2.0","id":9,"method":"roots/list"},"stream":"post:1"}]"""
        eq(check(transcript, P, 10).map { it.rule to it.index }, listOf("server-request-on-stream" to 1L))
    }
    test("a misuse of the API is MrtrException.Usage") {
        val e = raises<MrtrException.Usage> { KeyRing(1, "aes-256-gcm", ByteArray(31)) }
        eq(e.rule, "usage-invalid-argument"); eq(e.code, null)
        eq(raises<MrtrException.Usage> { KeyRing(1, "rot13", ByteArray(32)) }.rule, "usage-invalid-argument")
        eq(raises<MrtrException.Usage> { check("""[{"from":"proxy","message":{}}]""", P, 10) }.rule, "usage-invalid-argument")
        eq(raises<MrtrException.Usage> { Client(P, 10).use { it.answer(99L, "{}", "2") } }.rule, "usage-unknown-handle")
    }
    test("every rule of the core's table raises the class of its area") {
        val all = rules()
        check(all.size >= 46) { "rules: ${all.size}" }
        for (r in all) {
            val e = raises<MrtrException> { testOnlyError(r.name) }
            eq(e.ruleId, r.name)
            eq(e::class.simpleName!!.uppercase(), r.area.name)
        }
        eq(all.map { it.area }.toSet(), ErrorArea.values().toSet())
        val areas = all.associate { it.name to it.area }
        eq(areas["input-responses-malformed"], ErrorArea.RETRY); eq(areas["sse-retry-ignored"], ErrorArea.TRANSPORT)
        eq(areas["internal-panic"], ErrorArea.PANIC); eq(areas["limit-exceeded"], ErrorArea.PROTOCOL)
        eq(raises<MrtrException.Usage> { testOnlyError("no-such-rule") }.rule, "usage-invalid-argument")
    }
    test("bad input is an exception, never a crash") {
        eq(raises<MrtrException.Protocol> { mrtr.classifyBytes(byteArrayOf(0x7b, 0xff.toByte(), 0x7d), P) }.rule, "jsonrpc-parse-error")
        eq(raises<MrtrException.Protocol> { classify("[" .repeat(500), P) }.rule, "limit-exceeded")
        eq(raises<MrtrException.Protocol> { respond(CALL, "{\"a\":", null, P) }.rule, "jsonrpc-parse-error")
        // A lone surrogate is not text: the string lowering refuses it before the call, as the
        // caller's error (scripts/patch-kotlin.py; UniFFI's own threw an undeclared CharacterCodingException).
        val lone = raises<MrtrException.Usage> { classify("\uD800", P) }
        eq(lone.rule, "usage-invalid-argument"); eq(lone.code, null)
        eq(lone.detail, "a string argument is not valid UTF-16 (an unpaired surrogate at index 0)")
    }
    test("every failure is an MrtrException") {
        val e = raises<MrtrException> { classify("[]", P) }
        check(e is MrtrException.Protocol) { "$e" }
    }
    test("a panic is MrtrException.Panic (guarded) or UniFFI's InternalException") {
        val e = raises<MrtrException.Panic> { testOnlyPanic(true, "boom") }
        eq(e.rule, "internal-panic"); eq(e.code, -32603)
        check(e.detail.contains("boom")) { e.detail }
        val raw = raises<InternalException> { testOnlyPanic(false, "raw boom") }
        check(raw.message!!.contains("raw boom")) { "${raw.message}" }
        eq(classify(CALL, P).kind, MessageKind.REQUEST) // the library still works
    }
    test("classify") {
        val c = classify("""{"jsonrpc":"2.0","id":"a","result":{"resultType":"input_required","requestState":"s"}}""", P)
        eq(c.kind, MessageKind.INPUT_REQUIRED); eq(c.idJson, "\"a\""); eq(c.method, null)
        eq(classify(CALL, P).method, "tools/call")
    }
    test("server round: respond, retry, resume") {
        val answer = respond(CALL, ASK, "\"s1\"", P)
        val again = json(retry(CALL, answer, ANSWER, "2", P))
        eq(again.get("id").asInt, 2)
        val got = resume(again.toString(), ASK, P)
        eq(got.requestState, "s1"); eq(got.missing, emptyList<String>())
        eq(json(got.responsesJson).getAsJsonObject("login").get("action").asString, "accept")
    }
    test("client machine") {
        Client(P, 10).use { client ->
            val h = client.send(CALL)
            eq(json(client.pollTransmit()!!).get("id").asInt, 1)
            client.handleResponse(respond(CALL, ASK, "\"s1\"", P))
            val event = client.pollEvent()
            check(event is ClientEvent.InputRequired && event.handle == h && event.round == 0) { "$event" }
            client.answer(h, ANSWER, "2")
            val sent = json(client.pollTransmit()!!)
            eq(sent.getAsJsonObject("params").get("requestState").asString, "s1")
            eq(raises<MrtrException.Usage> { client.answer(h, ANSWER, "3") }.rule, "usage-out-of-turn")
            client.handleResponse("""{"jsonrpc":"2.0","id":2,"result":{"resultType":"complete","content":[]}}""")
            val done = client.pollEvent()
            check(done is ClientEvent.Done && json(done.responseJson).get("id").asInt == 2) { "$done" }
            eq(client.pollEvent(), null); eq(client.pollTransmit(), null)
        }
    }
    test("key ring rotation and vectors") {
        val master = secret()
        eq(raises<MrtrException.Usage> { KeyRing.derived(1, "aes-256-gcm", "master".toByteArray()) }.rule, "usage-invalid-argument")
        KeyRing.derived(1, "aes-256-gcm", master).use { ring ->
            val b = binding()
            val old = ring.seal(b, 0, 60, "x".toByteArray())
            ring.addDerived(2, "xchacha20-poly1305", master)
            eq(ring.setCurrent(2), true); eq(ring.setCurrent(9), false)
            eq(String(ring.open(old, b, 1, null).payload), "x")
            eq(ring.remove(1), true)
            eq(raises<MrtrException.State> { ring.open(old, b, 1, null) }.rule, "state-unknown-key")
            // Test vectors only (the shipped bindings lack it: scripts/tests/60-uniffi.sh).
            eq(raises<MrtrException.State> { ring.testOnlySealWithNonce(b, 0, 60, "x".toByteArray(), ByteArray(12)) }.rule, "state-malformed")
            val vector = ring.testOnlySealWithNonce(b, 0, 60, "x".toByteArray(), ByteArray(24))
            eq(vector, ring.testOnlySealWithNonce(b, 0, 60, "x".toByteArray(), ByteArray(24)))
            eq(ring.open(vector, b, 1, null).stateId, "00".repeat(24))
            check(ring.seal(b, 0, 60, "x".toByteArray()) != ring.seal(b, 0, 60, "x".toByteArray())) { "the OS nonce repeated" }
            eq(raises<MrtrException.Usage> { ring.open(old, b.copy(paramsDigest = ByteArray(3)), 1, null) }.rule, "usage-invalid-argument")
        }
        eq(paramsDigest("""{"a":1,"b":2}""").toList(), paramsDigest("""{ "b": 2, "a": 1 }""").toList())
    }
    test("no default anonymous subject") {
        KeyRing(1, "aes-256-gcm", secret()).use { ring ->
            for (b in listOf(binding(subject = null), binding(subject = ""), binding(subject = "alice", anonymous = true))) {
                eq(raises<MrtrException.Usage> { ring.seal(b, 1000, 60, "x".toByteArray()) }.rule, "usage-invalid-argument")
            }
            val anon = binding(subject = null, anonymous = true)
            val token = ring.seal(anon, 1000, 60, "x".toByteArray())
            eq(String(ring.open(token, anon, 1001, null).payload), "x")
            eq(raises<MrtrException.State> { ring.open(token, binding(subject = "anonymous"), 1001, null) }.rule, "state-wrong-subject")
            eq(raises<MrtrException.Usage> { bindingForRequest(CALL, null, false, P) }.rule, "usage-invalid-argument")
            eq(raises<MrtrException.Usage> { bindingFromJson("""{"method":"tools/call","target":"t","params":{}}""") }.rule, "usage-invalid-argument")
            eq(bindingForRequest(CALL, null, true, P).anonymous, true)
        }
    }
    test("no implicit {} params") {
        check(!paramsDigest("""{"name":"t","arguments":{"a":1}}""").contentEquals(paramsDigest("{}"))) { "params not bound" }
        check(!paramsDigest("""{"n":100000000000000000001}""").contentEquals(paramsDigest("""{"n":1e20}"""))) { "numbers rounded" }
        KeyRing(1, "aes-256-gcm", secret()).use { ring ->
            eq(raises<MrtrException.Usage> { ring.seal(binding().copy(paramsDigest = ByteArray(32)), 1000, 60, ByteArray(0)) }.rule, "usage-invalid-argument")
            eq(raises<MrtrException.Usage> { bindingFromJson("""{"subject":"a","method":"tools/call","target":"t"}""") }.rule, "usage-invalid-argument")
            val b = bindingForRequest(CALL, "alice", false, P)
            val token = ring.seal(b, 1000, 60, "x".toByteArray())
            val la = CALL.replace("NYC", "LA")
            eq(raises<MrtrException.State> { ring.open(token, bindingForRequest(la, "alice", false, P), 1001, null) }.rule, "state-wrong-request")
            val spec = """{"subject":"alice","protocol":"$P","method":"tools/call","target":"get_weather","params":${json(CALL).get("params")}}"""
            eq(String(ring.open(token, bindingFromJson(spec), 1001, null).payload), "x")
        }
    }
    test("a replay is refused by the guard; a guard that throws fails closed") {
        KeyRing(1, "aes-256-gcm", secret()).use { ring ->
            val b = binding()
            val guard = MemoryGuard()
            val token = ring.seal(b, 1000, 60, "x".toByteArray())
            eq(raises<MrtrException.State> { ring.open(token, binding(subject = "bob"), 1001, guard) }.rule, "state-wrong-subject")
            eq(guard.used.size, 0)
            val opened = ring.open(token, b, 1001, guard)
            eq(opened.expiry, 1060L); eq(guard.used, mapOf(opened.stateId to 1060L))
            val info = inspect(token)
            eq(listOf(info.stateId, info.algorithm, info.expiry.toString()), listOf(opened.stateId, "aes-256-gcm", "1060"))
            val e = raises<MrtrException.State> { ring.open(token, b, 1002, guard) }
            eq(e.rule, "state-replayed"); eq(e.code, -32602)
            eq(String(ring.open(token, b, 1002, null).payload), "x") // no guard: the host's choice
            val own = MrtrException.Usage("usage-invalid-argument", null, "the store is down", null)
            eq(raises<MrtrException.Usage> { ring.open(token, b, 1001, Throwing(own)) }.detail, "the store is down")
            val other = raises<MrtrException.Usage> { ring.open(token, b, 1001, Throwing(IllegalStateException("redis timeout"))) }
            check(other.detail.contains("redis timeout")) { other.detail }
        }
    }
    test("context separation and the seal budget") {
        val key = secret()
        KeyRing(1, "xchacha20-poly1305", key).use { staging ->
            KeyRing(1, "xchacha20-poly1305", key).use { production ->
                staging.setContext("staging".toByteArray()); production.setContext("production".toByteArray())
                val token = staging.seal(binding(), 1000, 60, "x".toByteArray())
                eq(String(staging.open(token, binding(), 1001, null).payload), "x")
                eq(raises<MrtrException.State> { production.open(token, binding(), 1001, null) }.rule, "state-tampered")
                eq(raises<MrtrException.Usage> { production.setContext(ByteArray(65)) }.rule, "usage-invalid-argument")
            }
        }
        KeyRing(1, "aes-256-gcm", secret()).use { ring ->
            ring.setSealBudget(2L)
            repeat(2) { ring.seal(binding(), 1000, 60, ByteArray(0)) }
            eq(raises<MrtrException.Usage> { ring.seal(binding(), 1000, 60, ByteArray(0)) }.rule, "usage-seal-budget-spent")
            eq(ring.seals(1), 2L); eq(ring.seals(9), null)
        }
    }
    test("rotation under concurrent open") {
        KeyRing(1, "aes-256-gcm", secret()).use { ring ->
            val b = binding()
            val fixed = ring.seal(b, 1000, 60, "fixed".toByteArray())
            val failures = java.util.concurrent.ConcurrentLinkedQueue<String>()
            val openers = (1..3).map {
                Thread {
                    repeat(200) {
                        try {
                            if (String(ring.open(fixed, b, 1001, null).payload) != "fixed") failures.add("payload")
                        } catch (e: Throwable) { failures.add(e.toString()) }
                    }
                }
            }
            val rotator = Thread {
                for (i in 0 until 200) {
                    val id = 2 + i % 2
                    ring.add(id, "xchacha20-poly1305", ByteArray(32) { id.toByte() })
                    ring.setCurrent(id)
                    ring.remove(5 - id)
                }
            }
            (openers + rotator).forEach { it.start() }
            (openers + rotator).forEach { it.join() }
            eq(failures.toList(), emptyList<String>())
        }
    }
    test("checker, one message at a time") {
        Checker(P, 10).use { c ->
            c.handle(Side.CLIENT, CALL, null)
            c.handle(Side.SERVER, """{"jsonrpc":"2.0","id":1,"result":{"content":[]}}""", "post:1")
            eq(c.violations().map { it.rule }, listOf("result-type-missing"))
            eq(raises<MrtrException.Protocol> { c.handle(Side.CLIENT, "{", null) }.rule, "jsonrpc-parse-error")
        }
    }
    test("sse decoder: chunks in any split, bytes that are not UTF-8, a block over the bound") {
        SseDecoder().use { d ->
            for (chunk in listOf(byteArrayOf(*"data: caf".toByteArray(), 0xc3.toByte()), byteArrayOf(0xa9.toByte(), '\r'.code.toByte()), "\n: note\nid: 7\r\n\r\n".toByteArray())) d.feed(chunk)
            eq(d.pollEvent(), SseEvent(data = "café", id = "7"))
            eq(d.pollEvent(), null)
            d.feed(byteArrayOf(*"data: ".toByteArray(), 0xff.toByte(), *"\n\nevent: input_required\nid: 8\n\n".toByteArray()))
            eq(raises<MrtrException.Protocol> { d.pollEvent() }.rule, "jsonrpc-parse-error")
            eq(d.pollEvent(), SseEvent(event = "input_required", id = "8"))
            d.feed("data: lost".toByteArray())
            d.finish()
            eq(d.pollEvent(), null)
        }
        SseDecoder(16L).use { d ->
            d.feed(("data: " + "x".repeat(10_000) + "\n\nretry: 250\n\n").toByteArray())
            eq(raises<MrtrException.Protocol> { d.pollEvent() }.rule, "limit-exceeded")
            eq(d.pollEvent(), SseEvent(retry = 250L))
        }
    }
    test("sse encode: what it writes decodes to the same block") {
        val event = SseEvent(event = "message", data = "line 1\nline 2", id = "k.1", retry = 100L)
        val text = sseEncode(event)
        check(text.contains("data: line 1\ndata: line 2\n")) { text }
        SseDecoder().use { d -> d.feed(text.toByteArray()); eq(d.pollEvent(), event) }
        eq(sseEncode(SseEvent()), "")
        for (bad in listOf(SseEvent(id = "a\nb"), SseEvent(event = "a\rb"), SseEvent(id = "a\u0000b")))
            eq(raises<MrtrException.Usage> { sseEncode(bad) }.rule, "usage-invalid-argument")
    }
    test("operation: each round's question answered by key, the retry under a new id with the state") {
        Operation("""{"mode":"2026-07-28","url":"https://example.com/mcp"}""", CALL, 0L).use { op ->
            val units = """{"method":"elicitation/create","params":{"mode":"form","message":"Units?",""" +
                """"requestedSchema":{"type":"object","properties":{"units":{"type":"string"}},"required":["units"]}}}"""
            respond(op, op.pollTransmit()!!,
                """{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"r1","inputRequests":{"units":$units}}}""", 1L)
            val asked = op.pollEvent()
            check(asked is OperationEvent.InputRequired && asked.round == 1 && json(asked.requestsJson).has("units")) { "$asked" }
            eq(raises<MrtrException.Usage> { op.answer("nothing", "{}", 2L) }.rule, "usage-unknown-handle")
            eq(raises<MrtrException.Retry> { op.answer("units", """{"action":"accept","content":{"units":7}}""", 2L) }.rule,
                "retry-input-response-invalid")
            op.answer("units", """{"action":"accept","content":{"units":"C"}}""", 2L)
            val retry = op.pollTransmit()!!
            val body = json(retry.bodyJson!!)
            eq(body.get("id").asString, "1.1")
            eq(body.getAsJsonObject("params").get("requestState").asString, "r1")
            eq(retry.headers["mcp-name"], "get_weather")
            respond(op, retry, """{"jsonrpc":"2.0","id":"1.1","result":{"resultType":"complete","content":[],"isError":false}}""", 3L)
            val done = op.pollEvent()
            check(done is OperationEvent.Done && json(done.responseJson).get("id").asString == "1.1") { "$done" }
            eq(op.isDrained(), true)
        }
    }
    test("http call: a JSON response, out-of-turn inputs") {
        HttpCall("""{"mode":"2026-07-28","url":"https://example.com/mcp","headers":{"Authorization":"t"}}""", CALL, 0L).use { call ->
            val sent = call.pollTransmit()!!
            eq(sent.exchange, 1L); eq(sent.method, "POST"); eq(sent.headers["authorization"], "t")
            eq(json(sent.bodyJson!!).get("id").asInt, 1)
            eq(call.pollTransmit(), null); eq(call.pollTimeout(), null)
            eq(raises<MrtrException.Usage> { call.handleBody(1L, "{".toByteArray(), 0L) }.rule, "usage-out-of-turn")
            eq(raises<MrtrException.Usage> { call.handleHead(9L, 200, emptyMap(), 0L) }.rule, "usage-unknown-handle")
            call.handleHead(1L, 200, mapOf("Content-Type" to "application/json"), 5L)
            val result = """{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}""".toByteArray()
            call.handleBody(1L, result.copyOfRange(0, 10), 6L)
            call.handleBody(1L, result.copyOfRange(10, result.size), 6L)
            eq(call.isDone(), false)
            call.handleEnd(1L, 7L)
            val event = events(call).single()
            check(event is HttpCallEvent.Response && json(event.messageJson).has("result")) { "$event" }
            eq(call.isDone(), true)
        }
    }
    test("http call: SEP-1335 retry, reconnect, 204, the buffered answer to the stream URL") {
        HttpCall(CONFIG_1335, TOOL_CALL, 1000L).use { call ->
            call.pollTransmit()
            call.handleHead(1L, 200, mapOf("content-type" to "text/event-stream", "link" to "</mcp?stream=abc>; rel=\"stream\""), 1000L)
            call.handleBody(1L, "id: a.1\ndata: $ELICIT\n\nid: a.2\nretry: 1500\n\n".toByteArray(), 1000L)
            val asked = events(call).single()
            check(asked is HttpCallEvent.ServerRequest && json(asked.messageJson).get("method").asString == "elicitation/create") { "$asked" }
            call.handleEnd(1L, 1000L)
            eq(call.pollTimeout(), 2500L)
            call.answer("""{"jsonrpc":"2.0","id":"e1","result":{"action":"accept"}}""", 1200L)
            eq(call.pollTransmit(), null)
            call.handleTimeout(2500L)
            val get = call.pollTransmit()!!
            eq(get.method, "GET"); eq(get.url, "https://example.com/mcp?stream=abc"); eq(get.headers["last-event-id"], "a.2")
            call.handleHead(get.exchange, 204, emptyMap(), 2500L)
            call.handleEnd(get.exchange, 2500L)
            val post = call.pollTransmit()!!
            eq(post.method, "POST"); eq(post.url, "https://example.com/mcp?stream=abc")
            eq(JsonParser.parseString(post.bodyJson!!).asJsonArray.size(), 1)
        }
    }
    test("http call: a 1000-link Link header, a stream that is not UTF-8, bad configurations") {
        HttpCall(CONFIG_1335, TOOL_CALL, 0L).use { call ->
            call.pollTransmit()
            val links = (0 until 1000).joinToString(", ") { "</l$it>; rel=\"next\"" }
            call.handleHead(1L, 200, mapOf("content-type" to "text/event-stream", "link" to links), 0L)
            val failed = events(call).single()
            check(failed is HttpCallEvent.Failed && failed.rule == "limit-exceeded") { "$failed" }
            eq(call.isDone(), true)
        }
        HttpCall(CONFIG_1335, TOOL_CALL, 0L).use { call ->
            call.pollTransmit()
            call.handleHead(1L, 200, mapOf("content-type" to "text/event-stream"), 0L)
            call.handleBody(1L, byteArrayOf(*"data: ".toByteArray(), 0xc3.toByte(), 0x28, 10, 10), 0L)
            val failed = events(call).single()
            check(failed is HttpCallEvent.Failed && failed.rule == "jsonrpc-parse-error") { "$failed" }
        }
        for ((config, request) in listOf(
            "{}" to TOOL_CALL,
            """{"mode":"sep-9999","url":"https://e.com"}""" to TOOL_CALL,
            """{"mode":"sep-1858","url":"not a url"}""" to TOOL_CALL,
            CONFIG_1335 to """{"jsonrpc":"2.0","method":"ping"}""",
            CONFIG_1335 to """{"jsonrpc"""",
        )) eq(raises<MrtrException.Usage> { HttpCall(config, request, 0L) }.rule, "usage-invalid-argument")
        HttpCall(CONFIG_1335, TOOL_CALL, 0L).use { call ->
            eq(raises<MrtrException.Usage> { call.answer("""{"jsonrpc":"2.0","id":"e1","result":{}}""", 0L) }.rule, "usage-out-of-turn")
        }
    }
    test("server side: streams, incoming requests, stream URLs, unassociated requests") {
        ServerStream("sep-1858", "k1", 1L).use { stream ->
            eq(stream.head(null)["content-type"], "text/event-stream")
            eq(stream.ask("[$ELICIT]", 0L), "k1.3")
            eq(raises<MrtrException.Usage> { stream.retry(10L) }.rule, "usage-out-of-turn")
            SseDecoder().use { d ->
                d.feed(stream.take().toByteArray())
                val blocks = List(3) { d.pollEvent()!! }
                eq(blocks.map { it.event }, listOf("buffer_input", null, "input_required"))
                eq(JsonParser.parseString(blocks[1].data), JsonParser.parseString(ELICIT))
            }
            eq(stream.take(), "")
        }
        val url = streamUrl("https://example.com/mcp", "k1")
        eq(url, "https://example.com/mcp?stream=k1")
        ServerStream("sep-1335", "k1", 1L).use { eq(it.head(url)["link"], "<$url>; rel=\"stream\"") }
        for ((mode, key) in listOf("sep-1858" to "", "sep-1858" to "a\nb", "sep-9999" to "k"))
            raises<MrtrException.Usage> { ServerStream(mode, key, 1L) }
        val answers = readHttpRequest("sep-1858", "POST", "https://example.com/mcp", mapOf("Last-Event-ID" to "k1.3"),
            """[{"jsonrpc":"2.0","id":"e1","result":{"action":"accept"}}]""".toByteArray(), "2025-11-25")
        check(answers is Incoming.Answers && answers.key == "k1" && answers.responsesJson.size == 1) { "$answers" }
        eq(readHttpRequest("sep-1335", "GET", url, emptyMap(), ByteArray(0), "2025-11-25"), Incoming.Resume("k1", null))
        val call = readHttpRequest("sep-1335", "POST", "https://example.com/mcp", emptyMap(), TOOL_CALL.toByteArray(), "2025-11-25")
        check(call is Incoming.Call && json(call.messageJson).get("id").asInt == 7) { "$call" }
        for (body in listOf(byteArrayOf('['.code.toByte(), '"'.code.toByte(), 0xff.toByte(), '"'.code.toByte(), ']'.code.toByte()), ByteArray(0)))
            eq(raises<MrtrException.Protocol> { readHttpRequest("sep-1335", "POST", "https://example.com/mcp", emptyMap(), body, "2025-11-25") }.rule, "jsonrpc-parse-error")
        val reply = json(unassociatedReply("""{"jsonrpc":"2.0","id":5,"method":"roots/list"}""")!!)
        eq(reply.getAsJsonObject("error").get("code").asInt, -32602)
        eq(unassociatedReply("""{"jsonrpc":"2.0","id":5,"method":"ping"}"""), null)
    }
    test("checker with a transport: HTTP entries") {
        val transcript = HTTP_ENTRIES.joinToString(",", "[", "]")
        val whole = check(transcript, "2025-11-25", 10, "sep-1858").map { it.rule to it.index }
        check(("sse-last-event-id-missing" to 2L) in whole) { "$whole" }
        check(("sse-last-event-id-missing" to 2L) !in check(transcript, "2025-11-25", 10).map { it.rule to it.index }) { "plain" }
        Checker("2025-11-25", 10, "sep-1858").use { c ->
            HTTP_ENTRIES.forEach { c.handleEntry(it) }
            raises<MrtrException.Usage> { c.handleEntry("""{"from":"client","http":[]}""") }
            eq(c.violations().map { it.rule to it.index }, whole)
        }
        raises<MrtrException.Usage> { Checker("2025-11-25", 10, "sep-9999") }
    }

    test("await-style tool over sealed rounds, and the 2025-11-25 bridge") {
        KeyRing(1, "aes-256-gcm", secret()).use { ring ->
            val settings = """{"ttl":300,"protocol":"$P"}"""
            val question = questionElicit("GitHub user?", """{"type":"object","properties":{"name":{"type":"string"}}}""")
            val asked = ring.startToolReplay(CALL, settings, """{"subject":"alice","now":1000}""", null).use { replay ->
                eq(replay.ask(question, "login"), null)
                eq(replay.round(), 0)
                json(replay.inputRequired(ring, null))
            }
            eq(asked.getAsJsonObject("result").get("resultType").asString, "input_required")
            val again = retry(CALL, asked.toString(), ANSWER, "2", P)
            val guard = MemoryGuard()
            ring.startToolReplay(again, settings, """{"subject":"alice","now":1010}""", guard).use { replay ->
                eq(json(replay.ask(question, "login")!!).getAsJsonObject("content").get("name").asString, "octocat")
                eq(replay.round(), 1)
                eq(json(replay.complete("""{"content":[]}""")).get("id").asInt, 2)
            }
            eq(raises<MrtrException.State> { ring.resumeRound(again, ASK, settings, """{"subject":"alice","now":1010}""", guard) }.rule, "state-replayed")
            raises<MrtrException.State> { ring.startToolReplay(again, settings, """{"subject":"mallory","now":1010}""", null) }
        }
        requireCapabilities(CALL, ASK, P) // elicitation was declared: it passes
        val sample = questionSample("""{"messages":[],"maxTokens":5}""")
        val missing = raises<MrtrException.Protocol> { requireCapabilities(CALL, """{"s":$sample}""", P) }
        eq(missing.rule, "request-capability-missing")
        eq(missing.code, -32021)
        check(json(missing.data!!).has("requiredCapabilities")) { "the refusal carries its data: ${missing.data}" }
        val answer = errorResponse("1", missing.rule, missing.detail, missing.data, P)
        eq(answer.status, 400)
        eq(json(answer.responseJson).getAsJsonObject("error").get("code").asInt, -32021)
        val legacy = """{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"t","arguments":{}}}"""
        ToolBridge(legacy, "k1k1k1k1k1k1k1k1", null).use { bridge ->
            val name = questionElicit("Name?", """{"type":"object","properties":{"v":{"type":"string"}}}""")
            bridge.replay().use { replay -> eq(replay.ask(name, null), null); bridge.ask(replay, 0L) }
            val request = bridge.pollWrite()!!.lines().filter { it.startsWith("data:") && "elicitation/create" in it }
                .map { json(it.removePrefix("data:")) }.single()
            eq(bridge.pending(), listOf(request.get("id").asString))
            check(bridge.handleAnswer("""{"jsonrpc":"2.0","id":${request.get("id")},"result":{"action":"accept","content":{"v":"Ada"}}}""", 5L)) { "round complete" }
            bridge.replay().use { replay -> eq(json(replay.ask(name, null)!!).getAsJsonObject("content").get("v").asString, "Ada") }
            bridge.complete("""{"content":[{"type":"text","text":"hi Ada"}]}""")
            val written = generateSequence { bridge.pollWrite() }.joinToString("")
            check("hi Ada" in written && bridge.isDone()) { written }
        }
    }

}
