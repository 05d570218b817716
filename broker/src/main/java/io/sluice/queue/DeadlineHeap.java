package io.sluice.queue;

import java.util.Arrays;

/**
 * A partition's pending deadlines (a delayed message's end of delay, an in-flight message's
 * visibility expiry): a binary min-heap of the records themselves, ordered by {@code visibleAt}.
 * Each record knows its slot, so a deleted message or a changed visibility timeout leaves or
 * moves in the heap at once: nothing stays reachable until an old deadline passes. (A heap of
 * deadline entries skipped when stale kept every deleted in-flight message, body included, until
 * its visibility timeout ended: at 1,000 messages/s and 30 s, 30,000 dead messages that the
 * young collections copied again and again.)
 *
 * <p>Not thread-safe: the partition's owner is the only caller.
 */
final class DeadlineHeap {
    private static final int INITIAL_CAPACITY = 16;

    private MessageRecord[] heap = new MessageRecord[INITIAL_CAPACITY];
    private int size;

    int size() {
        return size;
    }

    /** The record with the earliest deadline, or null when none is pending. */
    MessageRecord peek() {
        return size == 0 ? null : heap[0];
    }

    /** Sets {@code r}'s deadline to {@code at}: adds it, or moves it if it is pending already. */
    void schedule(MessageRecord r, long at) {
        int slot = r.deadlineSlot;
        if (slot < 0) {
            r.visibleAt = at;
            if (size == heap.length) {
                heap = Arrays.copyOf(heap, size * 2);
            }
            place(r, size++);
            siftUp(size - 1);
            return;
        }
        long before = r.visibleAt;
        r.visibleAt = at;
        if (at < before) {
            siftUp(slot);
        } else {
            siftDown(slot);
        }
    }

    /** Takes the earliest record out; null when none is pending. */
    MessageRecord poll() {
        if (size == 0) {
            return null;
        }
        MessageRecord first = heap[0];
        removeAt(0);
        return first;
    }

    /** Takes {@code r} out if it is pending; does nothing otherwise. */
    void remove(MessageRecord r) {
        if (r.deadlineSlot >= 0) {
            removeAt(r.deadlineSlot);
        }
    }

    /** Forgets every pending deadline. */
    void clear() {
        for (int i = 0; i < size; i++) {
            heap[i].deadlineSlot = -1;
        }
        heap = new MessageRecord[INITIAL_CAPACITY];
        size = 0;
    }

    private void removeAt(int slot) {
        MessageRecord gone = heap[slot];
        gone.deadlineSlot = -1;
        int last = --size;
        MessageRecord moved = heap[last];
        heap[last] = null;
        if (slot != last) {
            place(moved, slot);
            siftDown(slot);
            if (heap[slot] == moved) {
                siftUp(slot);
            }
        }
        // A burst of delayed messages must not keep its array once they are gone.
        if (heap.length > INITIAL_CAPACITY && size < heap.length / 4) {
            heap = Arrays.copyOf(heap, heap.length / 2);
        }
    }

    private void siftUp(int slot) {
        MessageRecord r = heap[slot];
        while (slot > 0) {
            int parent = (slot - 1) >>> 1;
            MessageRecord p = heap[parent];
            if (p.visibleAt <= r.visibleAt) {
                break;
            }
            place(p, slot);
            slot = parent;
        }
        place(r, slot);
    }

    private void siftDown(int slot) {
        MessageRecord r = heap[slot];
        int half = size >>> 1;
        while (slot < half) {
            int child = 2 * slot + 1;
            int right = child + 1;
            if (right < size && heap[right].visibleAt < heap[child].visibleAt) {
                child = right;
            }
            if (r.visibleAt <= heap[child].visibleAt) {
                break;
            }
            place(heap[child], slot);
            slot = child;
        }
        place(r, slot);
    }

    private void place(MessageRecord r, int slot) {
        heap[slot] = r;
        r.deadlineSlot = slot;
    }
}
