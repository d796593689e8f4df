// The Kotlin runner of the mrtr conformance corpus, through the UniFFI binding
// (package `mrtr`, generated/kotlin). Loads every case below
// MRTR_CONFORMANCE_DIR, drives the binding's API with it, compares as
// conformance/README.md says, prints one line per failing case and a closing
// "N passed, M failed"; exits non-zero on any failure or an empty corpus.
package mrtr.conformance

import com.google.gson.JsonArray
import com.google.gson.JsonElement
import com.google.gson.JsonNull
import com.google.gson.JsonObject
import com.google.gson.JsonParser
import com.google.gson.JsonPrimitive
import java.io.File
import kotlin.system.exitProcess
import mrtr.Binding
import mrtr.KeyRing
import mrtr.MrtrException
import mrtr.check
import mrtr.classify
import mrtr.paramsDigest
import mrtr.respond
import mrtr.resume
import mrtr.retry

const val DEFAULT_PROTOCOL = "2026-07-28"

/** The rule id of any binding exception (UniFFI gives the variants no common property). */
val MrtrException.ruleId: String
    get() = when (this) {
        is MrtrException.Protocol -> rule
        is MrtrException.Retry -> rule
        is MrtrException.State -> rule
        is MrtrException.Task -> rule
        is MrtrException.Association -> rule
        is MrtrException.Argument -> rule
        is MrtrException.Internal -> rule
    }

/** A case input the runner itself cannot use: `jsonrpc-invalid`, as the Rust runner says. */
class BadInput(what: String) : Exception(what)

class Case(val id: String, val op: String, val input: JsonObject, val expect: JsonElement)

fun load(dir: File): List<Case> =
    dir.walkTopDown().filter { it.isFile && it.name.endsWith(".json") }.sortedBy { it.path }.map { f ->
        val raw = JsonParser.parseString(f.readText(Charsets.UTF_8)).asJsonObject
        fun str(k: String) = raw.get(k)?.takeIf { it.isJsonPrimitive }?.asString ?: ""
        val input = raw.get("input")?.takeIf { it.isJsonObject }?.asJsonObject ?: JsonObject()
        Case(str("id"), str("op"), input, raw.get("expect") ?: JsonNull.INSTANCE)
    }.toList()

// --- helpers ---------------------------------------------------------------------------

fun JsonObject.text(key: String): String? = get(key)?.takeIf { it.isJsonPrimitive && it.asJsonPrimitive.isString }?.asString

/** The member as JSON text; absent reads as `null`, as `input["key"]` does in Rust. */
fun JsonObject.json(key: String, absent: String = "null"): String = get(key)?.toString() ?: absent

fun JsonObject.present(key: String): String? = get(key)?.takeIf { !it.isJsonNull }?.toString()

fun JsonObject.protocol(): String = text("protocol") ?: DEFAULT_PROTOCOL

fun parse(text: String): JsonElement = JsonParser.parseString(text)

fun obj(vararg pairs: Pair<String, Any?>): JsonObject = JsonObject().apply {
    for ((k, v) in pairs) add(k, when (v) {
        null -> JsonNull.INSTANCE
        is JsonElement -> v
        is String -> JsonPrimitive(v)
        is Number -> JsonPrimitive(v)
        is Boolean -> JsonPrimitive(v)
        is List<*> -> JsonArray().apply { v.forEach { add(it as JsonElement) } }
        else -> throw IllegalArgumentException("no JSON for $v")
    })
}

fun hex(e: JsonElement?): ByteArray {
    val s = e?.takeIf { it.isJsonPrimitive && it.asJsonPrimitive.isString }?.asString ?: throw BadInput("hex string expected")
    if (s.length % 2 != 0) throw BadInput("bad hex")
    return ByteArray(s.length / 2) { i -> (s.substring(2 * i, 2 * i + 2).toIntOrNull(16) ?: throw BadInput("bad hex")).toByte() }
}

fun JsonElement?.long(): Long? = this?.takeIf { it.isJsonPrimitive && it.asJsonPrimitive.isNumber }?.asBigDecimal
    ?.takeIf { it.signum() >= 0 && it.stripTrailingZeros().scale() <= 0 }?.toLong()

// --- the ops, through the binding --------------------------------------------------------

fun classifyOp(i: JsonObject): JsonElement {
    val c = classify(i.text("text") ?: "", i.protocol())
    return obj("kind" to c.kind.name.lowercase(), "id" to parse(c.idJson), "method" to c.method)
}

fun checkOp(i: JsonObject): JsonElement {
    val config = i.get("config")?.takeIf { it.isJsonObject }?.asJsonObject ?: JsonObject()
    val maxRounds = config.get("maxRounds").long()?.toUInt() ?: 10u
    val violations = check(i.json("transcript"), config.protocol(), maxRounds)
    return obj("violations" to violations.map { obj("rule" to it.rule, "index" to it.index.toLong()) })
}

fun retryOp(i: JsonObject): JsonElement = obj(
    "request" to parse(retry(i.json("request"), i.json("result"), i.json("inputResponses", "{}"), i.json("id"), i.protocol())),
)

fun resumeOp(i: JsonObject): JsonElement {
    val r = resume(i.json("request"), i.json("needs", "{}"), i.protocol())
    return obj(
        "responses" to parse(r.responsesJson),
        "missing" to r.missing.map { JsonPrimitive(it) },
        "ignored" to r.ignored.map { JsonPrimitive(it) },
        "requestState" to r.requestState,
    )
}

fun respondOp(i: JsonObject): JsonElement =
    obj("response" to parse(respond(i.json("request"), i.present("inputRequests"), i.present("requestState"), i.protocol())))

fun stateOp(i: JsonObject): JsonElement {
    val keys = i.get("keys")?.takeIf { it.isJsonArray }?.asJsonArray ?: throw BadInput("keys")
    if (keys.size() == 0) throw BadInput("no key")
    var ring: KeyRing? = null
    for (k in keys) {
        val key = k.asJsonObject
        val id = key.get("id").long()?.toInt()?.toUByte() ?: throw BadInput("key id")
        val alg = key.text("alg") ?: ""
        val secret = hex(key.get("secret"))
        if (secret.size != 32) throw BadInput("a secret is 32 bytes")
        ring?.add(id, alg, secret) ?: run { ring = KeyRing(id, alg, secret) }
    }
    val r = ring!!
    i.get("current").long()?.let { r.setCurrent(it.toInt().toUByte()) }
    i.get("maxTokenBytes").long()?.let { r.setMaxTokenBytes(it.toULong()) }
    val b = i.get("binding")?.takeIf { it.isJsonObject }?.asJsonObject ?: JsonObject()
    val binding = Binding(
        subject = b.text("subject") ?: "",
        protocol = b.protocol(),
        method = b.text("method") ?: "",
        target = b.text("target") ?: "",
        paramsDigest = paramsDigest(b.json("arguments", "{}")),
    )
    i.get("seal")?.takeIf { it.isJsonObject }?.asJsonObject?.let { s ->
        val now = s.get("now").long() ?: throw BadInput("now")
        val ttl = s.get("ttl").long() ?: throw BadInput("ttl")
        val payload = (s.text("payload") ?: "").toByteArray(Charsets.UTF_8)
        return obj("token" to r.sealWithNonce(binding, now.toULong(), ttl.toUInt(), payload, hex(s.get("nonce"))))
    }
    val o = i.get("open")?.takeIf { it.isJsonObject }?.asJsonObject ?: JsonObject()
    val payload = r.open(o.text("token") ?: "", binding, (o.get("now").long() ?: 0).toULong())
    return obj("payload" to String(payload, Charsets.UTF_8))
}

val OPS: Map<String, (JsonObject) -> JsonElement> = mapOf(
    "classify" to ::classifyOp,
    "check" to ::checkOp,
    "retry" to ::retryOp,
    "resume" to ::resumeOp,
    "respond" to ::respondOp,
    "state" to ::stateOp,
)

/** The outcome as the corpus writes expectations: a result object or `{"error": rule}`. */
fun outcome(case: Case): JsonElement {
    val op = OPS[case.op] ?: throw IllegalStateException("unknown op \"${case.op}\"")
    return try {
        op(case.input)
    } catch (e: MrtrException) {
        obj("error" to e.ruleId)
    } catch (e: BadInput) {
        obj("error" to "jsonrpc-invalid")
    }
}

// --- comparison ------------------------------------------------------------------------

/** JSON equality: key order ignored, numbers by value. */
fun jsonEq(a: JsonElement?, b: JsonElement?): Boolean {
    val x = a ?: JsonNull.INSTANCE
    val y = b ?: JsonNull.INSTANCE
    return when {
        x.isJsonPrimitive && y.isJsonPrimitive && x.asJsonPrimitive.isNumber && y.asJsonPrimitive.isNumber ->
            x.asBigDecimal.compareTo(y.asBigDecimal) == 0
        x.isJsonArray && y.isJsonArray ->
            x.asJsonArray.size() == y.asJsonArray.size() && x.asJsonArray.zip(y.asJsonArray).all { (p, q) -> jsonEq(p, q) }
        x.isJsonObject && y.isJsonObject -> {
            val (p, q) = x.asJsonObject to y.asJsonObject
            p.size() == q.size() && p.entrySet().all { (k, v) -> q.has(k) && jsonEq(v, q.get(k)) }
        }
        else -> x == y
    }
}

/** Arrays compared as sets (each element matched once). */
fun setEq(a: JsonElement?, b: JsonElement?): Boolean {
    if (a == null || b == null || !a.isJsonArray || !b.isJsonArray) return jsonEq(a, b)
    val left = b.asJsonArray.toMutableList()
    return a.asJsonArray.size() == left.size && a.asJsonArray.all { v ->
        val i = left.indexOfFirst { jsonEq(v, it) }
        if (i >= 0) { left.removeAt(i); true } else false
    }
}

/** null when `actual` meets `expect`, else why not. */
fun compare(op: String, expect: JsonElement, actual: JsonElement): String? {
    val e = expect.takeIf { it.isJsonObject }?.asJsonObject ?: return "expect must be an object"
    val a = actual.takeIf { it.isJsonObject }?.asJsonObject ?: JsonObject()
    if (e.has("error") || a.has("error")) return if (jsonEq(e.get("error"), a.get("error"))) null else "outcome differs"
    for ((key, want) in e.entrySet()) {
        val asSet = (op == "check" && key == "violations") || (op == "resume" && (key == "missing" || key == "ignored"))
        val same = if (asSet) setEq(want, a.get(key)) else jsonEq(want, a.get(key))
        if (!same) return "\"$key\" differs"
    }
    return null
}

fun main() {
    val dir = File(System.getenv("MRTR_CONFORMANCE_DIR") ?: "conformance/cases")
    val cases = try {
        if (!dir.isDirectory) throw java.io.FileNotFoundException("$dir is not a folder")
        load(dir)
    } catch (e: Exception) {
        System.err.println("cannot load the corpus: $e")
        exitProcess(2)
    }
    var failed = 0
    for (case in cases) {
        val why = try {
            val actual = outcome(case)
            compare(case.op, case.expect, actual)?.let { "$it\n  expected: ${case.expect}\n  actual:   $actual" }
        } catch (e: Throwable) {
            "$e"
        }
        if (why != null) {
            failed++
            println("FAIL ${case.id}: ${why.replace("\n", "\n     ")}")
        }
    }
    println("${cases.size - failed} passed, $failed failed")
    if (cases.isEmpty()) {
        System.err.println("no case found in $dir")
        exitProcess(1)
    }
    exitProcess(if (failed > 0) 1 else 0)
}
