package io.sluice.server;
public final class Main { public static void main(String[] a) {} }
