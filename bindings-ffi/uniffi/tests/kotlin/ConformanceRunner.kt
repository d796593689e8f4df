// The Kotlin runner of the mrtr conformance corpus, through the UniFFI binding
// (package `mrtr`, generated/kotlin). It produces, one judge compares
// (conformance/src/judge.rs; `scripts/conformance uniffi-kotlin` pipes this to
// it): for every case below MRTR_CONFORMANCE_DIR one line on stdout,
// {"id", "outcome"} with what the binding returned in the corpus's expectation
// shape ({"error": rule} for an MrtrException), or {"id", "crash"} when the
// runner cannot run the case; nothing else. Exits 2 when the corpus cannot be read.
package mrtr.conformance

import com.google.gson.JsonArray
import com.google.gson.JsonElement
import com.google.gson.JsonNull
import com.google.gson.JsonObject
import com.google.gson.JsonParser
import com.google.gson.JsonPrimitive
import java.io.File
import kotlin.system.exitProcess
import mrtr.HttpCall
import mrtr.HttpCallEvent
import mrtr.KeyRing
import mrtr.MrtrException
import mrtr.ReplayGuard
import mrtr.SseDecoder
import mrtr.bindingFromJson
import mrtr.check
import mrtr.classify
import mrtr.classifyBytes
import mrtr.respond
import mrtr.resume
import mrtr.retry

/** The rule id of any binding exception (UniFFI gives the variants no common property). */
val MrtrException.ruleId: String
    get() = when (this) {
        is MrtrException.Protocol -> rule
        is MrtrException.Retry -> rule
        is MrtrException.State -> rule
        is MrtrException.Task -> rule
        is MrtrException.Association -> rule
        is MrtrException.Transport -> rule
        is MrtrException.Usage -> rule
        is MrtrException.Panic -> rule
    }

fun JsonObject.text(key: String): String? = get(key)?.takeIf { it.isJsonPrimitive && it.asJsonPrimitive.isString }?.asString

/** The member as JSON text; absent reads as `absent`. */
fun JsonObject.json(key: String, absent: String = "null"): String = get(key)?.toString() ?: absent

fun JsonObject.present(key: String): String? = get(key)?.takeIf { !it.isJsonNull }?.toString()

fun JsonObject.protocol(): String = text("protocol") ?: "2026-07-28"

fun JsonObject.obj(key: String): JsonObject = get(key) as? JsonObject ?: JsonObject()

fun parse(text: String): JsonElement = JsonParser.parseString(text)

fun obj(vararg pairs: Pair<String, Any?>): JsonObject = JsonObject().apply {
    for ((k, v) in pairs) add(k, when (v) {
        null -> JsonNull.INSTANCE
        is JsonElement -> v
        is String -> JsonPrimitive(v)
        is Number -> JsonPrimitive(v)
        is List<*> -> JsonArray().apply { v.forEach { add(it as JsonElement) } }
        else -> throw IllegalArgumentException("no JSON for $v")
    })
}

fun hex(e: JsonElement?): ByteArray {
    val s = (e as? JsonPrimitive)?.takeIf { it.isString }?.asString ?: throw IllegalArgumentException("hex string expected")
    require(s.length % 2 == 0) { "bad hex" }
    return ByteArray(s.length / 2) { i -> s.substring(2 * i, 2 * i + 2).toInt(16).toByte() }
}

fun JsonElement?.long(): Long? = (this as? JsonPrimitive)?.takeIf { it.isNumber }?.asBigDecimal
    ?.takeIf { it.signum() >= 0 && it.stripTrailingZeros().scale() <= 0 }?.toLong()

// --- the ops, through the binding --------------------------------------------------------

fun classifyOp(i: JsonObject): JsonElement {
    val c = if (i.has("hex")) classifyBytes(hex(i.get("hex")), i.protocol()) else classify(i.text("text") ?: "", i.protocol())
    return obj("kind" to c.kind.name.lowercase(), "id" to parse(c.idJson), "method" to c.method)
}

fun checkOp(i: JsonObject): JsonElement {
    val config = i.obj("config")
    val maxRounds = config.get("maxRounds")?.let { it.long() ?: throw IllegalArgumentException("maxRounds") } ?: 10L
    val violations = check(i.json("transcript"), config.protocol(), maxRounds.toInt(), config.text("transport"))
    return obj("violations" to violations.map { obj("rule" to it.rule, "index" to it.index, "message" to it.message) })
}

fun retryOp(i: JsonObject): JsonElement = obj(
    "request" to parse(retry(i.json("request"), i.json("result"), i.json("inputResponses", "{}"), i.json("id"), i.protocol())),
)

fun resumeOp(i: JsonObject): JsonElement {
    val r = resume(i.json("request"), i.json("needs", "{}"), i.protocol())
    val keys = { k: List<String> -> k.map { JsonPrimitive(it) } }
    return obj("responses" to parse(r.responsesJson), "missing" to keys(r.missing), "ignored" to keys(r.ignored), "requestState" to r.requestState)
}

fun respondOp(i: JsonObject): JsonElement =
    obj("response" to parse(respond(i.json("request"), i.present("inputRequests"), i.present("requestState"), i.protocol())))

/** The replay guard of `open.used`: the ids listed were used before (hex compared as the core compares ids). */
class UsedBefore(used: JsonArray) : ReplayGuard {
    private val used = used.mapNotNull { (it as? JsonPrimitive)?.takeIf { p -> p.isString }?.asString?.lowercase() }.toSet()
    override fun firstUse(stateId: String, expiry: Long): Boolean = stateId.lowercase() !in used
}

fun stateOp(i: JsonObject): JsonElement {
    val keys = (i.get("keys") as? JsonArray)?.map { it as JsonObject }?.takeIf { it.isNotEmpty() }
        ?: throw IllegalArgumentException("no keys")
    val ring = keys.fold(null as KeyRing?) { ring, k ->
        val id = k.get("id").long()?.toInt() ?: throw IllegalArgumentException("key id")
        ring?.apply { add(id, k.text("alg") ?: "", hex(k.get("secret"))) } ?: KeyRing(id, k.text("alg") ?: "", hex(k.get("secret")))
    }!!
    ring.use {
        i.get("current").long()?.let { ring.setCurrent(it.toInt()) }
        i.get("maxTokenBytes").long()?.let { ring.setMaxTokenBytes(it) }
        i.text("context")?.let { ring.setContext(it.toByteArray(Charsets.UTF_8)) }
        // bindingText verbatim: its numbers stay exact; a binding object as JSON text.
        val binding = bindingFromJson(i.text("bindingText") ?: i.json("binding"))
        if (i.get("seal") is JsonObject) {
            val s = i.obj("seal")
            val (now, ttl) = (s.get("now").long() ?: throw IllegalArgumentException("now")) to (s.get("ttl").long() ?: throw IllegalArgumentException("ttl"))
            return obj("token" to ring.testOnlySealWithNonce(binding, now, ttl, (s.text("payload") ?: "").toByteArray(), hex(s.get("nonce"))))
        }
        val o = i.obj("open")
        val guard = (o.get("used") as? JsonArray)?.let { UsedBefore(it) }
        val opened = ring.open(o.text("token") ?: "", binding, o.get("now").long() ?: 0L, guard)
        return obj("payload" to String(opened.payload, Charsets.UTF_8), "stateId" to opened.stateId, "expiry" to opened.expiry)
    }
}

/** `sse`: each chunk's UTF-8 bytes fed to a decoder, the stream ended, every block listed (an unreadable one as its rule). */
fun sseOp(i: JsonObject): JsonElement = SseDecoder().use { decoder ->
    val chunks = i.get("chunks") as? JsonArray ?: throw IllegalArgumentException("chunks")
    for (chunk in chunks) decoder.feed(chunk.asString.toByteArray(Charsets.UTF_8))
    decoder.finish()
    val events = JsonArray()
    while (true) {
        val block = try {
            decoder.pollEvent() ?: break
        } catch (e: MrtrException) {
            events.add(obj("error" to e.ruleId))
            continue
        }
        events.add(JsonObject().apply {
            block.event?.let { addProperty("event", it) }
            block.data?.let { addProperty("data", it) }
            block.id?.let { addProperty("id", it) }
            block.retry?.let { add("retry", JsonPrimitive(java.math.BigInteger(it.toString()))) }
        })
    }
    obj("events" to events)
}

/** An `HttpCallEvent` in the core's JSON shape. */
fun httpEvent(e: HttpCallEvent): JsonElement = when (e) {
    is HttpCallEvent.ServerRequest -> obj("type" to "serverRequest", "message" to parse(e.messageJson))
    is HttpCallEvent.Message -> obj("type" to "message", "message" to parse(e.messageJson))
    is HttpCallEvent.Response -> obj("type" to "response", "message" to parse(e.messageJson))
    is HttpCallEvent.Violation -> obj("type" to "violation", "rule" to e.rule, "message" to e.message)
    is HttpCallEvent.Failed -> obj("type" to "failed", "rule" to e.rule, "message" to e.message)
}

/** What the call has to say after an input, in the drain order. */
fun drain(call: HttpCall): JsonArray = JsonArray().apply {
    while (true) {
        val r = call.pollTransmit() ?: break
        val headers = JsonObject().apply { r.headers.forEach { (n, v) -> addProperty(n, v) } }
        val sent = obj("exchange" to r.exchange, "method" to r.method, "url" to r.url, "headers" to headers)
        r.bodyJson?.let { sent.add("body", parse(it)) }
        add(obj("send" to sent))
    }
    while (true) add(obj("event" to httpEvent(call.pollEvent() ?: break)))
    call.pollTimeout()?.let { add(obj("timeout" to it)) }
}

/** `http-client`: the call driven by the steps; after its creation and after each step, what it sends, its events, its timeout. */
fun httpClientOp(i: JsonObject): JsonElement {
    var now = i.get("now").long() ?: 0L
    val call = try {
        HttpCall(i.json("config"), i.json("request"), now)
    } catch (e: MrtrException) {
        return obj("outputs" to listOf(JsonArray().apply { add(obj("error" to e.ruleId)) }))
    }
    val outputs = JsonArray()
    call.use {
        outputs.add(drain(call))
        for (step in i.get("steps") as? JsonArray ?: throw IllegalArgumentException("steps")) {
            val s = step as JsonObject
            s.get("at").long()?.let { now = it }
            val exchange = { part: JsonObject -> part.get("exchange").long() ?: throw IllegalArgumentException("exchange") }
            try {
                when {
                    s.has("head") -> {
                        val h = s.obj("head")
                        val headers = h.obj("headers").entrySet().associate { (n, v) -> n to v.asString }
                        val status = h.get("status").long()?.toInt() ?: throw IllegalArgumentException("status")
                        call.handleHead(exchange(h), status, headers, now)
                    }
                    s.has("body") -> {
                        val b = s.obj("body")
                        val bytes = if (b.has("hex")) hex(b.get("hex")) else (b.text("text") ?: throw IllegalArgumentException("text")).toByteArray(Charsets.UTF_8)
                        call.handleBody(exchange(b), bytes, now)
                    }
                    s.has("end") -> call.handleEnd(exchange(s.obj("end")), now)
                    s.has("answer") -> call.answer(s.json("answer"), now)
                    s.get("timeout").long() != null -> {
                        now = s.get("timeout").long()!!
                        call.handleTimeout(now)
                    }
                    else -> throw IllegalArgumentException("unknown step $s")
                }
            } catch (e: MrtrException) {
                outputs.add(JsonArray().apply { add(obj("error" to e.ruleId)) })
                continue
            }
            outputs.add(drain(call))
        }
    }
    return obj("outputs" to outputs)
}

/** The outcome of `op` as the corpus writes expectations: a result object or `{"error": rule}`. */
fun outcome(op: String, i: JsonObject): JsonElement = try {
    when (op) {
        "classify" -> classifyOp(i)
        "check" -> checkOp(i)
        "retry" -> retryOp(i)
        "resume" -> resumeOp(i)
        "respond" -> respondOp(i)
        "state" -> stateOp(i)
        "sse" -> sseOp(i)
        "http-client" -> httpClientOp(i)
        else -> throw IllegalArgumentException("unknown op \"$op\"")
    }
} catch (e: MrtrException) {
    obj("error" to e.ruleId)
}

/** A corpus that cannot be read: the runner stops (exit 2) instead of reporting cases. */
class CorpusUnreadable(message: String) : Exception(message)

/**
 * One outcome line per case below `dir`, in path order, each handed to `emit`: what the
 * judge reads. Shared by `main` (scripts/conformance uniffi-kotlin) and the JVM package's
 * JUnit runner (bindings-jvm), which pipes the same lines to the same judge.
 */
fun runCorpus(dir: File, emit: (String) -> Unit) {
    if (!dir.isDirectory) throw CorpusUnreadable("$dir is not a folder")
    for (f in dir.walkTopDown().filter { it.isFile && it.name.endsWith(".json") }.sortedBy { it.path }) {
        val case = try {
            JsonParser.parseString(f.readText(Charsets.UTF_8)).asJsonObject
        } catch (e: Exception) {
            throw CorpusUnreadable("$f: $e")
        }
        val line = obj("id" to (case.text("id") ?: ""))
        try {
            line.add("outcome", outcome(case.text("op") ?: "", case.obj("input")))
        } catch (e: Throwable) {
            line.addProperty("crash", e.toString())
        }
        emit(line.toString())
    }
}

fun main() {
    try {
        runCorpus(File(System.getenv("MRTR_CONFORMANCE_DIR") ?: "conformance/cases")) { println(it) }
    } catch (e: CorpusUnreadable) {
        System.err.println("cannot load the corpus: ${e.message}")
        exitProcess(2)
    }
}
