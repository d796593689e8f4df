#!/usr/bin/env python3
"""Patches the Kotlin UniFFI generates (uniffi_generate in lib.sh runs it on every generation, so
the committed generated/kotlin and a fresh generation stay the same):

- FfiConverterString.toUtf8, the lowering of every string argument: a Java or Kotlin String that
  is not valid UTF-16 (an unpaired surrogate, as "\\ud800") made UniFFI's reporting encoder throw
  java.nio.charset.MalformedInputException, which is neither an MrtrException nor declared (Kotlin
  declares no checked exceptions, so Java cannot even catch it by type). It is the caller's
  error: MrtrException.Usage with rule usage-invalid-argument, as the C ABI refuses bytes that
  are not UTF-8 (security review 2026-12-07, I11).

    patch-kotlin.py FILE.kt

Stops (exit 1) when the generated code is not the one this patch knows: a new UniFFI version
needs the patch looked at again, never silently skipped.
"""
import sys

ORIGINAL = """    fun toUtf8(value: String): ByteBuffer {
        // Make sure we don't have invalid UTF-16, check for lone surrogates.
        return Charsets.UTF_8.newEncoder().run {
            onMalformedInput(CodingErrorAction.REPORT)
            encode(CharBuffer.wrap(value))
        }
    }
"""

PATCHED = """    fun toUtf8(value: String): ByteBuffer {
        // Make sure we don't have invalid UTF-16, check for lone surrogates.
        // mrtr (bindings-ffi/uniffi/scripts/patch-kotlin.py): one is the caller's error, refused
        // as MrtrException.Usage (usage-invalid-argument), not an undeclared CharacterCodingException.
        try {
            return Charsets.UTF_8.newEncoder().run {
                onMalformedInput(CodingErrorAction.REPORT)
                encode(CharBuffer.wrap(value))
            }
        } catch (e: java.nio.charset.CharacterCodingException) {
            val at = value.indices.firstOrNull { i ->
                val c = value[i]
                (c.isHighSurrogate() && (i + 1 >= value.length || !value[i + 1].isLowSurrogate())) ||
                    (c.isLowSurrogate() && (i == 0 || !value[i - 1].isHighSurrogate()))
            }
            val where = if (at == null) "" else " (an unpaired surrogate at index $at)"
            throw MrtrException.Usage("usage-invalid-argument", null, "a string argument is not valid UTF-16$where", null)
        }
    }
"""


def main():
    path = sys.argv[1]
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if text.count(ORIGINAL) != 1:
        sys.exit(f"patch-kotlin.py: {path}: FfiConverterString.toUtf8 is not the code this patch knows")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(ORIGINAL, PATCHED))


if __name__ == "__main__":
    main()
