/**
 * The worker threads of this process that run stream threads and are alive, by `threadId`. Known to the main
 * thread only (it starts them): a task directory lock naming one of them is held, one naming a worker that has
 * ended is left over.
 */
export const liveWorkerThreadIds = new Set<number>();
