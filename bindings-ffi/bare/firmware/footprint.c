/*
 * What classify costs in flash: this image calls mrtr_bare_classify once
 * (bytes from a volatile, so nothing is folded away); built with
 * -DMRTR_BASELINE, the same image without the call. The figures script
 * reports the difference of their sizes (arm-none-eabi-size).
 */
#include "mrtr_bare.h"

const uint8_t *volatile message;
volatile size_t message_len;
volatile int sink;

int main(void) {
#ifndef MRTR_BASELINE
  mrtr_bare_classified c;
  sink = mrtr_bare_classify(message, message_len, MRTR_BARE_PROTOCOL_2026_07_28, NULL, &c);
  sink += c.kind;
#else
  sink = (int)message_len + (message != NULL);
#endif
  return 0;
}
