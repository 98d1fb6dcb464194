import { Serdes, StreamsBuilder, TimeWindows, TopologyTestDriver } from '../../index';

describe('KGroupedStream.cogroup', () => {
  it("folds several grouped streams into one windowed aggregate, one repartitioned first (the README's example)", async () => {
    const builder = new StreamsBuilder();
    const clicks = builder.stream<string, string>('clicks').groupByKey();
    const views = builder.stream<string, string>('views').groupBy((_user, page) => page);
    clicks
      .cogroup((_page, _click, activity: { clicks: number; views: number }) => ({ ...activity, clicks: activity.clicks + 1 }))
      .cogroup(views, (_page, _view, activity) => ({ ...activity, views: activity.views + 1 }))
      .windowedBy(TimeWindows.ofSizeAndGrace(60_000, 10_000))
      .aggregate(() => ({ clicks: 0, views: 0 }), { storeName: 'activity-per-minute', valueSerde: Serdes.Json() });
    const topology = builder.build();
    expect(topology.toString()).toContain('COGROUPKSTREAM-MERGE-');

    const driver = new TopologyTestDriver(topology, { 'application.id': 'activity' }, 0);
    const clickTopic = driver.createInputTopic('clicks', Serdes.String(), Serdes.String());
    const viewTopic = driver.createInputTopic('views', Serdes.String(), Serdes.String());
    clickTopic.pipeInput('/home', 'c', 1_000);
    viewTopic.pipeInput('ada', '/home', 2_000);
    viewTopic.pipeInput('bob', '/home', 3_000);
    clickTopic.pipeInput('/docs', 'c', 61_000);
    const store = driver.getWindowStore<string, { value: { clicks: number; views: number } }>('activity-per-minute');
    expect(store.fetch('/home', 0)?.value).toEqual({ clicks: 1, views: 2 });
    expect(store.fetch('/docs', 60_000)?.value).toEqual({ clicks: 1, views: 0 });
    await driver.close();
  });
});
