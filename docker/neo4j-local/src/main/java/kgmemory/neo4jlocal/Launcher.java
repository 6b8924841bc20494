package kgmemory.neo4jlocal;
public class Launcher { public static void main(String[] a) {} }
