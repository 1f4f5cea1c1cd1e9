package dev.redissonts;

import java.util.Collections;
import java.util.List;

/** Positional arguments of a "call" request, with typed accessors. */
public final class Args {
    private final List<Object> values;

    public Args(List<Object> values) {
        this.values = values == null ? Collections.emptyList() : values;
    }

    public int size() {
        return values.size();
    }

    public Object get(int index) {
        if (index >= values.size()) {
            throw new IllegalArgumentException("missing argument #" + index);
        }
        return values.get(index);
    }

    public long getLong(int index) {
        Object v = get(index);
        if (v instanceof Number) {
            return ((Number) v).longValue();
        }
        throw new IllegalArgumentException("argument #" + index + " must be a number, got " + v);
    }

    public int getInt(int index) {
        return Math.toIntExact(getLong(index));
    }

    public String getString(int index) {
        Object v = get(index);
        if (v instanceof String) {
            return (String) v;
        }
        throw new IllegalArgumentException("argument #" + index + " must be a string, got " + v);
    }

    /** Fails unless the argument count is one of {@code allowed}. */
    public void expectCount(String method, int... allowed) {
        for (int n : allowed) {
            if (n == values.size()) {
                return;
            }
        }
        throw new IllegalArgumentException(
                method + ": unsupported argument count " + values.size() + " " + values);
    }
}
