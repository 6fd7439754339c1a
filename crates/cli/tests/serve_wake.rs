//! Live traces across servers (issue 14, item 3; decision S20): on one PostgreSQL database, a
//! live trace stream on one server sees an apply made on another at once, woken by
//! LISTEN/NOTIFY. Both servers poll only once an hour, so nothing but the notification can bring
//! the new lines within the test's (generous) bound. PostgreSQL only: SQLite has one server.

mod serve_support;

use std::time::Duration;

use serve_support::*;

/// Reads the event stream until it has carried `count` ids, within `bound`; the ids read.
async fn ids_until(stream: &mut reqwest::Response, text: &mut String, count: usize, bound: Duration) -> Vec<u64> {
    let read = async {
        loop {
            let ids: Vec<u64> =
                text.lines().filter_map(|l| l.strip_prefix("id: ")).map(|n| n.parse::<u64>().unwrap()).collect();
            if ids.len() >= count {
                return ids;
            }
            let chunk = stream.chunk().await.expect("the stream reads").expect("the stream goes on");
            text.push_str(&String::from_utf8_lossy(&chunk));
        }
    };
    tokio::time::timeout(bound, read).await.expect("the lines arrive on the stream")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_on_one_server_sees_an_apply_made_on_another_at_once() {
    let Some(database) = Database::postgres().await else { return };
    let hourly = ["--trace-poll-ms", "3600000"];
    let first = Server::start_with(&database, &hourly);
    let second = Server::start_with(&database, &hourly);
    let client = client();
    let document = upload(&client, &first, "club-fair.dialogue.md").await;
    let session = create(&client, &first, &document, 8).await;
    let opening = trace(&client, &first, &session).await.len();
    assert!(opening > 0);
    // A client without a total timeout: the stream stays open; each wait is bounded below.
    let streaming = reqwest::Client::new();
    let url = second.url(&format!("/v1/sessions/{}/trace?after=0", session.id));
    let mut stream =
        streaming.get(&url).bearer_auth(&session.token).header("accept", "text/event-stream").send().await.unwrap();
    assert_eq!(stream.headers()["content-type"], "text/event-stream");
    let mut text = String::new();
    let bound = Duration::from_secs(60);
    assert_eq!(ids_until(&mut stream, &mut text, opening, bound).await.len(), opening);
    // Two turns on the first server; the second's stream carries their lines, in order.
    for turn in 0..2 {
        let view = show(&client, &first, &session).await.unwrap()["view"].clone();
        let next = toward_the_end(&view).unwrap();
        let answer = ask(&client, &first, &session, &format!("w{turn}"), &next).await.unwrap();
        assert!(committed(&answer), "{}", answer.body);
        let now = trace(&client, &first, &session).await.len();
        assert!(now > opening);
        let ids = ids_until(&mut stream, &mut text, now, bound).await;
        assert_eq!(ids, (1..=now as u64).collect::<Vec<_>>());
    }
    drop(stream);
    drop((first, second));
    database.finish().await;
}
