//! The one builder of a base chain, for every reader (RFC 1808 section 3).

use std::borrow::Cow;

use super::{Base, BaseSource, Layer, LayerStatus};
use crate::error::Error;
use crate::url::{BaseUrl, Rules};

/// The base of a document, layer by layer innermost first (RFC 1808 §3): a
/// forced base, its own layers, the outer one; the first that serves wins.
#[derive(Debug)]
pub struct BaseChain<'a> {
    rules: Rules,
    outer: Option<&'a Base>,
    chosen: Option<Base>,
    layers: Vec<Layer>,
}

impl<'a> BaseChain<'a> {
    /// A chain under `rules`, the forced base on top and `outer` below the document's own.
    pub fn new(rules: Rules, forced: Option<&'a Base>, outer: Option<&'a Base>) -> Self {
        // A document nested in one with no base has no outer base either.
        let outer = outer.filter(|outer| !outer.is_stand_in());
        let mut chain = BaseChain {
            rules,
            outer,
            chosen: None,
            layers: Vec::new(),
        };
        if let Some(forced) = forced {
            chain.push(
                forced.source.clone(),
                forced.url.as_str(),
                LayerStatus::Used,
            );
            chain.chosen = Some(forced.clone());
        }
        chain
    }

    fn push(&mut self, source: BaseSource, value: &str, status: LayerStatus) {
        self.layers.push(Layer::new(source, value, status));
    }

    /// Offers the document's next layer: if none above gave the base, its value
    /// (resolved against the outer base) gives it, else is recorded as ignored.
    pub fn offer(&mut self, source: BaseSource, value: &str) -> Result<(), Error> {
        if self.chosen.is_some() {
            self.push(source, value, LayerStatus::Below);
            return Ok(());
        }
        let resolved = match self.outer {
            Some(outer) => outer.url.resolve(value).map(Cow::into_owned),
            None => Ok(value.to_owned()),
        };
        match resolved.and_then(|url| BaseUrl::parse(&url, self.rules)) {
            Ok(url) => {
                let mut layer = Layer::new(source.clone(), value, LayerStatus::Used);
                layer.resolved = Some(url.as_str().to_owned()).filter(|r| r != value);
                self.layers.push(layer);
                self.chosen = Some(Base::new(url, source));
                Ok(())
            }
            Err(err) => {
                self.push(source, value, LayerStatus::Ignored(err.to_string()));
                Err(err)
            }
        }
    }

    /// Records a layer that cannot serve, and why.
    pub fn ignore(&mut self, source: BaseSource, value: &str, why: impl Into<String>) {
        let status = if self.chosen.is_some() {
            LayerStatus::Below
        } else {
            LayerStatus::Ignored(why.into())
        };
        self.push(source, value, status);
    }

    /// The chosen base (the outer one if no layer served), and every layer's fate.
    pub fn finish(mut self) -> (Option<Base>, Vec<Layer>) {
        if let Some(outer) = self.outer {
            let status = if self.chosen.is_some() {
                LayerStatus::Below
            } else {
                LayerStatus::Used
            };
            self.push(outer.source.clone(), outer.url.as_str(), status);
        }
        let base = self.chosen.or_else(|| self.outer.cloned());
        (base, self.layers)
    }
}

/// The layers of a document inside an entity, innermost first: its own, then the entity's.
pub fn stack_layers(document: Vec<Layer>, mut entity: Vec<Layer>) -> Vec<Layer> {
    let own: Vec<Layer> = document
        .into_iter()
        .filter(|l| {
            matches!(
                l.source,
                BaseSource::BaseElement { .. } | BaseSource::XmlBase { .. } | BaseSource::Forced
            )
        })
        .collect();
    if own.iter().any(|l| l.status == LayerStatus::Used) {
        for layer in &mut entity {
            if layer.status == LayerStatus::Used {
                layer.status = LayerStatus::Below;
            }
        }
    }
    own.into_iter().chain(entity).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(url: &str, source: BaseSource) -> Base {
        Base::new(BaseUrl::parse(url, Rules::Rfc1808).unwrap(), source)
    }

    #[test]
    fn the_first_layer_that_serves_gives_the_base() {
        let outer = base("http://a/b/c", BaseSource::RetrievedFrom);
        let mut chain = BaseChain::new(Rules::Rfc1808, None, Some(&outer));
        chain.ignore(BaseSource::BaseElement { line: 1 }, "", "empty href");
        chain
            .offer(BaseSource::BaseElement { line: 2 }, "d/")
            .unwrap();
        chain
            .offer(BaseSource::BaseElement { line: 3 }, "e/")
            .unwrap();
        let (chosen, layers) = chain.finish();
        assert_eq!(chosen.unwrap().url.as_str(), "http://a/b/d/");
        let statuses: Vec<&LayerStatus> = layers.iter().map(|l| &l.status).collect();
        assert_eq!(
            statuses,
            [
                &LayerStatus::Ignored("empty href".into()),
                &LayerStatus::Used,
                &LayerStatus::Below,
                &LayerStatus::Below,
            ]
        );
    }

    #[test]
    fn the_layer_that_gives_the_base_keeps_what_it_resolved_to() {
        let outer = base("http://a/b/c", BaseSource::RetrievedFrom);
        let mut chain = BaseChain::new(Rules::Rfc1808, None, Some(&outer));
        chain
            .offer(BaseSource::XmlBase { line: 1 }, "../d/")
            .unwrap();
        chain.offer(BaseSource::XmlBase { line: 2 }, "e/").unwrap();
        let layers = chain.finish().1;
        let resolved: Vec<Option<&str>> = layers.iter().map(|l| l.resolved.as_deref()).collect();
        // The one below the one used, and the outer base as it stands, have none.
        assert_eq!(resolved, [Some("http://a/d/"), None, None]);
        let mut chain = BaseChain::new(Rules::Rfc1808, None, Some(&outer));
        chain
            .offer(BaseSource::XmlBase { line: 1 }, "http://x/")
            .unwrap();
        assert_eq!(chain.finish().1[0].resolved, None);
    }

    #[test]
    fn a_forced_base_stands_above_every_layer() {
        let forced = base("http://f/", BaseSource::Forced);
        let outer = base("http://a/", BaseSource::RetrievedFrom);
        let mut chain = BaseChain::new(Rules::Rfc1808, Some(&forced), Some(&outer));
        chain
            .offer(BaseSource::BaseElement { line: 1 }, "x/")
            .unwrap();
        let (chosen, layers) = chain.finish();
        assert_eq!(chosen.unwrap().source, BaseSource::Forced);
        assert_eq!(layers.len(), 3);
        assert!(layers[1..].iter().all(|l| l.status == LayerStatus::Below));
    }

    #[test]
    fn without_layers_the_outer_base_serves() {
        let chain = BaseChain::new(Rules::Rfc1808, None, None);
        assert_eq!(chain.finish().0.map(|b| b.source), None);
        let outer = base("http://a/", BaseSource::RetrievedFrom);
        let mut chain = BaseChain::new(Rules::Whatwg, None, Some(&outer));
        assert!(
            chain
                .offer(BaseSource::BaseElement { line: 1 }, "http://[")
                .is_err()
        );
        let (chosen, layers) = chain.finish();
        assert_eq!(chosen.unwrap().source, BaseSource::RetrievedFrom);
        assert_eq!(layers[1].status, LayerStatus::Used);
    }
}
