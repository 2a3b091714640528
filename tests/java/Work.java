public class Work {
    static final Object lock = new Object();
    static volatile long sink;
    static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
    static void spin(long until) { while (System.nanoTime() < until) sink += fib(18); }
    static void alloc(long until) { while (System.nanoTime() < until) { byte[] b = new byte[4096 + (int) (sink & 1023)]; sink += b.length; String s = "x" + sink; sink += s.length(); } }
    static void contend(long until) { while (System.nanoTime() < until) { synchronized (lock) { try { Thread.sleep(15); } catch (InterruptedException e) { return; } } } }
    public static void main(String[] a) throws Exception {
        long until = System.nanoTime() + Long.parseLong(a[0]) * 1000000L;
        Thread[] t = { new Thread(() -> spin(until), "spinner"), new Thread(() -> alloc(until), "allocator"),
                       new Thread(() -> contend(until), "locker-1"), new Thread(() -> contend(until), "locker-2") };
        for (Thread x : t) x.start();
        for (Thread x : t) x.join();
    }
}
