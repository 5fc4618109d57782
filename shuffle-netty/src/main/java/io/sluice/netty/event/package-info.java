/**
 * The library's events on the wire and in queues: {@link io.sluice.netty.event.EventSerializer} lays the
 * end-of-partition event and engine events into small heap buffers tagged as events, outside the network buffer
 * pools, and reads them back. Stateless; called on producer threads (serializing), and on consumer threads and event
 * loops (reading).
 */
package io.sluice.netty.event;
