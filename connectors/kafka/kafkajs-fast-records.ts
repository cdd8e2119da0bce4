/**
 * Puts kafkajs-record-batch-decoder.ts in the place of kafkajs's own record batch decoder for
 * this thread's kafkajs. kafkajs requires that decoder once, when its first fetch response of
 * version 4 or later is decoded, so the stand-in must be in the module cache before then;
 * installing it later would leave kafkajs's decoder in use, which is an error here rather than
 * a silent slowdown.
 */
import { createRequire, Module } from 'node:module';
import { decodeRecordBatch } from './kafkajs-record-batch-decoder.js';

const require = createRequire(import.meta.url);

export function installFastRecordBatchDecoder(): void {
  const decoderPath = require.resolve('kafkajs/src/protocol/recordBatch/v0/decoder.js');
  const cached = require.cache[decoderPath];
  if (cached?.exports === decodeRecordBatch) return;
  if (cached !== undefined) throw new Error('kafkajs loaded its record batch decoder before the fast one was installed');
  const stand = new Module(decoderPath);
  stand.filename = decoderPath;
  stand.loaded = true;
  stand.exports = decodeRecordBatch;
  require.cache[decoderPath] = stand;
}
