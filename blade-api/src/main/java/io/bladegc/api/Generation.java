package io.bladegc.api;

/** Which part of the heap a coming collection will reclaim. */
public enum Generation {
    /** A young (minor) collection: eden and survivors. Usually short. */
    YOUNG,
    /** A collection of the old generation, normally a full stop-the-world collection. Usually long. */
    OLD
}
