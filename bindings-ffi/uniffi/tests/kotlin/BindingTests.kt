// Unit tests of the Kotlin binding: the exception hierarchy (one class per
// area, every rule of the core's table in its area's class, `.rule`, `.code`,
// `.detail`), panics, the client machine, the key ring
// and the checker. A small harness (no test framework needed offline): prints
// one line per failing test and a closing "N passed, M failed"; exits non-zero
// on any failure.
package mrtr.tests

import com.google.gson.JsonParser
import kotlin.system.exitProcess
import mrtr.Binding
import mrtr.Checker
import mrtr.Client
import mrtr.ClientEvent
import mrtr.ErrorArea
import mrtr.InternalException
import mrtr.KeyRing
import mrtr.MessageKind
import mrtr.MrtrException
import mrtr.Side
import mrtr.bindingForRequest
import mrtr.check
import mrtr.classify
import mrtr.paramsDigest
import mrtr.protocols
import mrtr.respond
import mrtr.resume
import mrtr.retry
import mrtr.rules
import mrtr.taskTransition
import mrtr.taskUpdate
import mrtr.conformance.ruleId
import mrtr.testOnlyError
import mrtr.testOnlyPanic

const val META = """{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}"""
const val CALL = """{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_weather","arguments":{"location":"NYC"},"_meta":$META}}"""
const val ASK = """{"login":{"method":"elicitation/create","params":{"message":"GitHub user?","requestedSchema":{"type":"object","properties":{"name":{"type":"string"}}}}}}"""
const val ANSWER = """{"login":{"action":"accept","content":{"name":"octocat"}}}"""
const val P = "2026-07-28"

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

fun main() {
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
        val ring = KeyRing(1u, "aes-256-gcm", ByteArray(32) { 7 })
        val b = bindingForRequest(CALL, "alice", P)
        val e = raises<MrtrException.State> { ring.open("!!", b, 1000u) }
        eq(e.rule, "state-malformed"); eq(e.code, -32602)
        val token = ring.seal(b, 1000u, 60u, "hello".toByteArray())
        eq(String(ring.open(token, b, 1059u)), "hello")
        eq(raises<MrtrException.State> { ring.open(token, b, 1060u) }.rule, "state-expired")
        eq(raises<MrtrException.State> { ring.open(token, b.copy(subject = "bob"), 1001u) }.rule, "state-wrong-subject")
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
        eq(check(transcript, P, 10u).map { it.rule to it.index }, listOf("server-request-on-stream" to 1uL))
    }
    test("a misuse of the API is MrtrException.Usage") {
        val e = raises<MrtrException.Usage> { KeyRing(1u, "aes-256-gcm", ByteArray(31)) }
        eq(e.rule, "usage-invalid-argument"); eq(e.code, null)
        eq(raises<MrtrException.Usage> { KeyRing(1u, "rot13", ByteArray(32)) }.rule, "usage-invalid-argument")
        eq(raises<MrtrException.Usage> { check("""[{"from":"proxy","message":{}}]""", P, 10u) }.rule, "usage-invalid-argument")
        eq(raises<MrtrException.Usage> { Client(P, 10u).use { it.answer(99uL, "{}", "2") } }.rule, "usage-unknown-handle")
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
        // A lone surrogate is not text: UniFFI's string lowering refuses it before the call.
        raises<java.nio.charset.CharacterCodingException> { classify("\uD800", P) }
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
        Client(P, 10u).use { client ->
            val h = client.send(CALL)
            eq(json(client.pollTransmit()!!).get("id").asInt, 1)
            client.handleResponse(respond(CALL, ASK, "\"s1\"", P))
            val event = client.pollEvent()
            check(event is ClientEvent.InputRequired && event.handle == h && event.round == 0u) { "$event" }
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
        val master = ByteArray(32) { it.toByte() }
        eq(raises<MrtrException.Usage> { KeyRing.derived(1u, "aes-256-gcm", "master".toByteArray()) }.rule, "usage-invalid-argument")
        KeyRing.derived(1u, "aes-256-gcm", master).use { ring ->
            val b = Binding("", P, "tools/call", "t", paramsDigest("{}"))
            val old = ring.seal(b, 0u, 60u, "x".toByteArray())
            ring.addDerived(2u, "xchacha20-poly1305", master)
            eq(ring.setCurrent(2u), true); eq(ring.setCurrent(9u), false)
            eq(String(ring.open(old, b, 1u)), "x")
            eq(ring.remove(1u), true)
            eq(raises<MrtrException.State> { ring.open(old, b, 1u) }.rule, "state-unknown-key")
            eq(raises<MrtrException.State> { ring.sealWithNonce(b, 0u, 60u, "x".toByteArray(), ByteArray(12)) }.rule, "state-malformed")
            eq(ring.sealWithNonce(b, 0u, 60u, "x".toByteArray(), ByteArray(24)), ring.sealWithNonce(b, 0u, 60u, "x".toByteArray(), ByteArray(24)))
            eq(raises<MrtrException.Usage> { ring.open(old, b.copy(paramsDigest = ByteArray(3)), 1u) }.rule, "usage-invalid-argument")
        }
        eq(paramsDigest("""{"a":1,"b":2}""").toList(), paramsDigest("""{ "b": 2, "a": 1 }""").toList())
    }
    test("checker, one message at a time") {
        Checker(P, 10u).use { c ->
            c.handle(Side.CLIENT, CALL, null)
            c.handle(Side.SERVER, """{"jsonrpc":"2.0","id":1,"result":{"content":[]}}""", "post:1")
            eq(c.violations().map { it.rule }, listOf("result-type-missing"))
            eq(raises<MrtrException.Protocol> { c.handle(Side.CLIENT, "{", null) }.rule, "jsonrpc-parse-error")
        }
    }

    var failed = 0
    for ((name, body) in tests) {
        try {
            body()
        } catch (e: Throwable) {
            failed++
            println("FAIL $name: $e")
        }
    }
    println("uniffi-kotlin: ${tests.size - failed} passed, $failed failed")
    exitProcess(if (failed > 0) 1 else 0)
}
